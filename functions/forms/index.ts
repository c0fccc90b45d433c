import { createRouter } from '../../lib/app';
import { leadForms } from './leads';

/** Forms: enquiries (POST /leads). Booking requests and the browser's publishable-key path join here. */
export function formsGroup() {
  return createRouter().route('/', leadForms);
}

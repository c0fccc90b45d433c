import { createRouter } from '../../lib/app';
import { formsCors } from '../../lib/forms-cors';
import { leadForms } from './leads';

/** Forms from the visitor's browser: enquiries (POST /leads) and booking requests (POST /bookings). */
export function formsGroup() {
  return createRouter().use('/leads', formsCors()).route('/', leadForms);
}

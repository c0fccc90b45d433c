import { createRouter } from '../../lib/app';
import { leadForms } from './leads.routes';

/**
 * Forms from the visitor's browser: enquiries (POST /leads). Their CORS is the root app's (`formPaths`), ahead
 * of the body limit.
 */
export function formsGroup() {
  return createRouter().route('/', leadForms);
}
/** The group's browser forms, under /api/v1. */
formsGroup.formPaths = ['/leads'];

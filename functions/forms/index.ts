import { defineGroup } from '../../lib/compose';
import { leadForms } from './leads.routes';

/**
 * Forms from the visitor's browser: enquiries (POST /leads). Their CORS is the root app's (`formPaths`), ahead
 * of the body limit. Its admin routes (admin.ts: listing requests turned into draft listings) are composed into
 * the admin API by functions/app.ts.
 */
export const forms = defineGroup({
  name: 'forms',
  routes: [leadForms],
  formPaths: ['/leads'],
});

import { defineGroup } from '../../lib/compose';
import { inboundReceivers } from './inbound.routes';
import { enquiryForms } from './enquiries.routes';
import { savedSearchPages } from './saved-search-page.routes';
import { savedSearches } from './saved-searches.routes';
import { savedSearchJobs } from './jobs';

/**
 * Enquiries from anyone outside the company: the visitor's browser (POST /leads; its CORS is the root app's,
 * `formPaths`, ahead of the body limit) and the inbound receivers where WhatsApp, Property Finder and signed senders
 * deliver theirs (/inbound/{token}/…); saved searches (a browser form too, read and stopped by server keys; the
 * visitor's page at /saved-searches/{token}; scheduled work announces their matches). Its admin routes (admin.ts: draft listings from listing requests, the inbound
 * channels) are composed into the admin API by functions/app.ts.
 */
export const forms = defineGroup({
  name: 'forms',
  routes: [enquiryForms, savedSearches, inboundReceivers],
  formPaths: ['/leads', '/saved-searches'],
  pages: savedSearchPages,
  jobs: savedSearchJobs,
});

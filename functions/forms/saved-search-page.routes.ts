import { createRouter } from '../../lib/app';
import { htmlAnswer, tokenPageAction, tokenPageRoute } from '../../lib/pages';
import type { Handler } from '../../lib/routes';
import { savedSearchPage, savedSearchStep } from './saved-search-page';

/** A saved search's page for its visitor: HTML at /saved-searches/{token} (lib/pages.ts; saved-search-page.ts answers). */
const pageRoute = tokenPageRoute({
  path: '/saved-searches/{token}',
  operationId: 'getSavedSearchPage',
  tags: ['Saved searches'],
  summary: 'The visitor’s saved-search page (HTML), at the `confirm_url` and `page_url` a server key reads',
  description:
    'The search and where it stands, in the visitor’s language (English or Arabic, right to left), with a confirm button while pending and a stop button until stopped; no script.',
});

const refused = { 403: htmlAnswer('The form was sent from another site; nothing changed.') };

const confirmRoute = tokenPageAction({
  path: '/saved-searches/{token}/confirmation',
  operationId: 'confirmSavedSearchPage',
  tags: ['Saved searches'],
  summary: 'Confirm a saved search (the page’s button): 303 back to the page',
  description: 'A pending search becomes active (`saved_search.confirmed`); any other is left as it is.',
  responses: refused,
});

const stopRoute = tokenPageAction({
  path: '/saved-searches/{token}/stop',
  operationId: 'stopSavedSearchPage',
  tags: ['Saved searches'],
  summary: 'Stop a saved search (the page’s button, and the `stop_url` of a one-click unsubscribe): 303 back to the page',
  description:
    'A pending or active search is stopped (`saved_search.stopped`, reason `visitor`); a stopped one is left as it is. A mail provider’s RFC 8058 one-click POST (no Origin) is taken.',
  responses: refused,
});

const showPage: Handler<typeof pageRoute> = savedSearchPage();
const confirmPage: Handler<typeof confirmRoute> = savedSearchStep('active');
const stopPage: Handler<typeof stopRoute> = savedSearchStep('stopped');

export const savedSearchPages = () =>
  createRouter().openapi(pageRoute, showPage).openapi(confirmRoute, confirmPage).openapi(stopRoute, stopPage);

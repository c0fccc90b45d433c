import { z } from '@hono/zod-openapi';
import { formGuardFields, leadFormFields } from '../common/forms';
import { listOf, syncQuery } from '../common/api';
import { checkListingFilters, listingFilters } from '../common/listing-filters';
import { text } from '../common/text';
import { savedSearchStatuses } from './db';

/**
 * Saved searches (issue 36; docs/api-reference.md, "Saved searches"): the visitor's form, the answers a server key
 * reads, and the search itself — the query string of `GET /listings` it was made from, filters only.
 */

/** The filters a saved search keeps: those of `GET /listings` (schema/common/listing-filters.ts), without an order. */
const { sort: _sort, ...savedFilters } = listingFilters;
export const SavedFilters = z.strictObject(savedFilters).superRefine(checkListingFilters);
export type SavedFiltersValue = z.infer<typeof SavedFilters>;

export const SavedSearchFormInput = z
  .strictObject({
    search: text()
      .max(2000)
      .openapi({
        description:
          'The search, as the query string of `GET /listings` that shows it (a leading `?` is allowed): its filters only ' +
          '(`q`, `type`, `area`, `price_max`, `bbox`, `check_in`…), each once; `sort`, `page_size`, `cursor` and `facets` ' +
          'are refused. An empty string saves "every new listing". Checked as the list checks it (400 at `search.<name>`).',
        example: 'q=marina&bedrooms=2&price_max=2500000',
      }),
    email: leadFormFields.email.unwrap().openapi({ description: 'Where the company sends the alerts (its CRM sends them).' }),
    name: leadFormFields.name,
    language: leadFormFields.language,
    consent: leadFormFields.consent,
    consent_version: leadFormFields.consent_version,
    ...formGuardFields,
  })
  .openapi('SavedSearchFormInput');

export const SavedSearchFormAnswer = z
  .object({
    saved_search_id: z.string().uuid(),
    status: z.literal('pending'),
  })
  .openapi('SavedSearchFormAnswer', {
    description:
      'Saved, waiting for the visitor to confirm it at the link the company emails them; nothing the visitor sent is repeated.',
  });

export const SavedSearchSchema = z
  .object({
    saved_search_id: z.string().uuid(),
    status: z.enum(savedSearchStatuses).openapi({
      description: '`pending` until the visitor confirms it at `confirm_url`; `active` while it matches; `stopped`.',
    }),
    stop_reason: z.enum(['visitor', 'staff', 'erased']).nullable(),
    search: z.string().openapi({ description: 'The query string of GET /listings it keeps (filters only).' }),
    filters: z.record(z.string(), z.string()).openapi({ description: 'The same filters, by name.' }),
    contact: z.string().openapi({ description: 'The reference of the person who saved it (read:contacts gives their email).' }),
    language: z.string().nullable(),
    consent: z.object({ version: z.string(), given_at: z.string() }),
    confirm_url: z.string().nullable().openapi({
      description:
        'While pending: the page where the visitor confirms (send it to their email). It also shows the search and a stop button.',
    }),
    stop_url: z.string().nullable().openapi({
      description:
        'Until stopped: POST it to stop the alerts (RFC 8058 one-click: put it in `List-Unsubscribe` with `List-Unsubscribe-Post: List-Unsubscribe=One-Click`); the page at `confirm_url`/`page_url` has the same button.',
    }),
    page_url: z.string().nullable().openapi({ description: 'Until stopped: the page of the search (for a link in each alert).' }),
    matches: z.number().int().openapi({ description: 'Listings announced so far (`saved_search.matched`).' }),
    created_at: z.string(),
    updated_at: z.string(),
    confirmed_at: z.string().nullable(),
    stopped_at: z.string().nullable(),
    checked_at: z.string().nullable().openapi({ description: 'When scheduled work last compared it with the catalogue.' }),
  })
  .openapi('SavedSearch');

export const SavedSearchListSchema = listOf(SavedSearchSchema, 'SavedSearchList');

export const SavedSearchesQuery = z
  .strictObject({
    ...syncQuery,
    status: z.enum(savedSearchStatuses).optional(),
    contact: text().max(40).optional().openapi({ description: 'A person’s reference: only their saved searches.' }),
  })
  .openapi('SavedSearchesQuery');

export const SavedSearchParams = z.object({ saved_search_id: z.string().uuid() });

export const SavedSearchMatchSchema = z
  .object({
    listing_id: z.string().uuid(),
    slug: z.object({ en: z.string(), ar: z.string().nullable() }),
    status: z.string().openapi({ description: 'The listing’s status now (`published`, `withdrawn`…).' }),
    matched_at: z.string(),
    announced: z
      .boolean()
      .openapi({ description: 'false: it already matched when the search was first checked (no event was sent).' }),
  })
  .openapi('SavedSearchMatch');

export const SavedSearchMatchListSchema = listOf(SavedSearchMatchSchema, 'SavedSearchMatchList');

export const SavedSearchMatchesQuery = z.strictObject({
  page_size: syncQuery.page_size,
  cursor: syncQuery.cursor,
});

import type { z } from '@hono/zod-openapi';
import { sql } from 'kysely';
import { keyringOf, openSecret } from '../../lib/crypto-jwe';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import type { Services } from '../../lib/env';
import { syncResource } from '../../lib/resources';
import type { SavedSearchRow } from '../../schema/forms/db';
import type { SavedSearchSchema } from '../../schema/forms/saved-searches';

export type SavedSearchView = z.infer<typeof SavedSearchSchema>;
export type SavedSearchRecord = SavedSearchRow & { contact_reference: string; matches: number };

/** A company's saved searches with the person's reference and how many listings each announced (one query a page). */
export function selectSavedSearches(executor: Executor, companyId: string) {
  return executor
    .selectFrom('saved_searches')
    .innerJoin('contacts as person', 'person.id', 'saved_searches.contact_id')
    .selectAll('saved_searches')
    .select([
      'person.reference as contact_reference',
      sql<number>`(select count(*)::int from saved_search_matches m
        where m.saved_search_id = saved_searches.id and m.announced)`.as('matches'),
    ])
    .where('saved_searches.company_id', '=', companyId);
}

/** The page of a saved search for its visitor: `/saved-searches/{token}` on the company's host (saved-search-page.ts). */
export const searchPagePath = (token: string) => `/saved-searches/${token}`;

/**
 * A saved search as a server key reads it, with its links on the company's host (`origin`): the token opened from its
 * sealed copy (a 503 without the details key, as any sealed secret). A stopped search has no links.
 */
async function presentSearch(services: Services, origin: string, row: SavedSearchRecord): Promise<SavedSearchView> {
  const open = row.status !== 'stopped';
  const page = open ? `${origin}${searchPagePath(await openSecret(keyringOf(services.config), row.token_jwe, row.id))}` : null;
  return {
    saved_search_id: row.id,
    status: row.status,
    stop_reason: row.stop_reason,
    search: row.search,
    filters: Object.fromEntries(new URLSearchParams(row.search)),
    contact: row.contact_reference,
    language: row.language,
    consent: { version: row.consent_version, given_at: iso(row.consent_at) },
    confirm_url: row.status === 'pending' ? page : null,
    stop_url: page && `${page}/stop`,
    page_url: page,
    matches: row.matches,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    confirmed_at: iso(row.confirmed_at),
    stopped_at: iso(row.stopped_at),
    checked_at: iso(row.checked_at),
  };
}

/**
 * The saved searches as a sync resource (lib/resources.ts) whose links are on `origin`, the host the request came to
 * (a company's host). Every read is audited: it names a person.
 */
export function savedSearchResource(origin: string) {
  return syncResource<SavedSearchRecord, SavedSearchView>('saved_searches', {
    idType: 'uuid',
    noun: 'saved search',
    select: selectSavedSearches,
    present: (services, rows) => Promise.all(rows.map((row) => presentSearch(services, origin, row))),
    personal: (view) => view.contact,
  });
}

import { sql } from 'kysely';
import { stamp } from '../../lib/clock';
import { randomToken, sha256 } from '../../lib/crypto';
import { type Keyring, sealSecret } from '../../lib/crypto-jwe';
import { type Executor, isUniqueViolation } from '../../lib/db/index';
import { prepared } from '../../lib/db/prepared';
import { ApiError, notFound } from '../../lib/errors';
import { type CausedBy, eventCtes, newEventId } from '../../lib/events';
import { type PersonValues, personCtes, personValues, wantedPerson } from '../../lib/people';
import { canMove, checkMove, statusMachine } from '../../lib/transitions';
import { listingFilters } from '../../schema/common/listing-filters';
import { type SavedSearchStatus, type SavedSearchStopReason, savedSearchStatuses } from '../../schema/forms/db';
import { SavedFilters, type SavedFiltersValue } from '../../schema/forms/saved-searches';
import type { Company } from '../../schema/platform/db';

/**
 * Saved searches (issue 36; docs/api-reference.md, "Saved searches"): a visitor keeps a search of `GET /listings` with
 * their email; it waits for their confirmation at a link the company's CRM sends them, then scheduled work announces
 * each listing that starts matching it (saved-search-matches.ts). One token, in the links, is its only key for the
 * visitor: its hash finds the search, its sealed copy gives the links back to a server key that sends them.
 */

/** The filter names a saved search keeps, in the order its canonical query string lists them. */
const filterNames = Object.keys(listingFilters).filter((name) => name !== 'sort');
/** The list's parameters that are not filters: an order, a page, counts. */
const notFilters = new Set(['sort', 'page_size', 'cursor', 'facets']);

const invalid = (path: string, code: string, message: string) =>
  new ApiError('invalid_request', 'The saved search is not a search of GET /listings.', { errors: [{ path, code, message }] });

/** A search as kept: its canonical query string, and its filters as the list reads them. */
export type ParsedSearch = { search: string; filters: SavedFiltersValue };

/**
 * The saved search of a query string of `GET /listings` (a leading `?` allowed): its filters checked as the list checks
 * them (400 at `search.<name>`), each once, nothing but filters; kept in a canonical order.
 */
export function parseSearch(text: string): ParsedSearch {
  const params = new URLSearchParams(text.startsWith('?') ? text.slice(1) : text);
  const raw: Record<string, string> = {};
  for (const [name, value] of params) {
    if (notFilters.has(name))
      throw invalid(`search.${name}`, 'not_a_filter', `${name} is not a filter: a saved search keeps filters only.`);
    if (!filterNames.includes(name))
      throw invalid(`search.${name}`, 'unknown_field', `${name} is not a filter of GET /listings.`);
    if (Object.hasOwn(raw, name)) throw invalid(`search.${name}`, 'duplicate', `${name} is given twice.`);
    raw[name] = value;
  }
  const parsed = SavedFilters.safeParse(raw);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => ({
      path: ['search', ...issue.path.map(String)].join('.'),
      code: 'invalid',
      message: issue.message,
    }));
    throw new ApiError('invalid_request', 'The saved search is not a search of GET /listings.', { errors });
  }
  const kept = filterNames.filter((name) => raw[name] !== undefined).map((name) => [name, raw[name] as string]);
  return { search: new URLSearchParams(kept).toString(), filters: parsed.data };
}

/** Where a saved search may go: the visitor confirms a pending one; the visitor, staff or an erasure stop it. */
export const savedSearchMachine = statusMachine<SavedSearchStatus>('saved search', {
  pending: ['active', 'stopped'],
  active: ['stopped'],
  stopped: [],
});

type NewSearchValues = PersonValues & {
  id: string;
  search: string;
  language: string | null;
  token_hash: Uint8Array;
  token_jwe: string;
  consent_version: string;
  consent_address: string | null;
  now: string;
  event: string;
};

/** The person matched or added as a visitor (lib/people.ts), the search inserted, `saved_search.created`: one statement. */
const insertSearch = prepared<NewSearchValues, { id: string }>(
  (p) => sql`
    with ${personCtes(p)},
    saved as (
      insert into saved_searches (id, company_id, contact_id, search, language, token_hash, token_jwe, consent_version,
        consent_at, consent_address, updated_at)
      select ${p.id}::uuid, ${p.company_id}::uuid, person.id, ${p.search}::text, ${p.language}::text, ${p.token_hash}::bytea,
        ${p.token_jwe}::text, ${p.consent_version}::text, ${p.now}::timestamptz, ${p.consent_address}::text, ${stamp}
      from person
      returning id, (select reference from person) as contact_reference
    ),
    ${eventCtes(
      'saved',
      p.event,
      { companyId: p.company_id, type: 'saved_search.created', causedBy: p.caused_by },
      'saved',
      sql`jsonb_build_object('saved_search_id', happened.id, 'contact_reference', happened.contact_reference)`,
    )}
    select id from saved`,
);

export type NewSavedSearch = {
  search: ParsedSearch;
  email: string;
  name?: string;
  language?: string;
  consentVersion: string;
  consentAddress: string | null;
};

/**
 * Saves a visitor's search (one statement; run once more when a concurrent add of the same person met the contacts'
 * unique index). The person is matched as a visitor: by email, never changed (lib/people.ts, "Matching people").
 */
export async function saveSearch(
  db: Executor,
  company: Company,
  keyring: Keyring | undefined,
  input: NewSavedSearch,
  causedBy: CausedBy,
  now: Date,
): Promise<{ id: string }> {
  const id = crypto.randomUUID();
  const token = randomToken(32);
  const person = { name: input.name, email: input.email, language: input.language };
  const values: NewSearchValues = {
    ...personValues(company, wantedPerson(company, person), causedBy, { rule: 'visitor', touch: 'on_change' }),
    id,
    search: input.search.search,
    language: input.language ?? null,
    token_hash: await sha256(token),
    token_jwe: await sealSecret(keyring, token, id),
    consent_version: input.consentVersion,
    consent_address: input.consentAddress,
    now: now.toISOString(),
    event: newEventId(),
  };
  for (let attempt = 0; ; attempt++) {
    try {
      const [row] = await insertSearch(db, values);
      if (!row) throw new Error('The saved search was not inserted.');
      return row;
    } catch (error) {
      if (attempt > 0 || !isUniqueViolation(error)) throw error;
    }
  }
}

/** Who steps a saved search, and why it stops. */
export type SearchStep = { causedBy: CausedBy; reason?: SavedSearchStopReason };

/**
 * Confirms or stops the company's saved search `id` (the visitor's page found it by its token), in one statement: the bare
 * row locked, moved as {@link savedSearchMachine} allows, with its event. Answers the status it had and has now;
 * undefined when none is found. A step it cannot take changes nothing (the caller says why).
 */
export async function stepSearch(
  db: Executor,
  companyId: string,
  id: string,
  to: Exclude<SavedSearchStatus, 'pending'>,
  by: SearchStep,
  now: Date,
): Promise<{ id: string; before: SavedSearchStatus; after: SavedSearchStatus } | undefined> {
  const from = savedSearchStatuses.filter((status) => canMove(savedSearchMachine, status, to));
  const step = to === 'active' ? 'confirm' : 'stop';
  const type = step === 'confirm' ? 'saved_search.confirmed' : 'saved_search.stopped';
  const { rows } = await sql<{ id: string; before: SavedSearchStatus; after: SavedSearchStatus }>`
    with target as (
      select s.id, s.status, s.contact_id from saved_searches s
      where s.company_id = ${companyId}::uuid and s.id = ${id}::uuid
      for update
    ),
    moved as (
      update saved_searches s set status = ${to}::text, updated_at = ${stamp},
        confirmed_at = case when ${step === 'confirm'} then ${now.toISOString()}::timestamptz else s.confirmed_at end,
        stopped_at = case when ${step === 'stop'} then ${now.toISOString()}::timestamptz else s.stopped_at end,
        stop_reason = case when ${step === 'stop'} then ${by.reason ?? 'visitor'}::text else s.stop_reason end
      from target t
      where s.id = t.id and t.status = any (${from}::text[])
      returning s.id, (select c.reference from contacts c where c.id = t.contact_id) as contact_reference
    ),
    ${eventCtes(
      'moved',
      newEventId(),
      { companyId, type, causedBy: by.causedBy },
      'moved',
      sql`jsonb_build_object('saved_search_id', happened.id, 'contact_reference', happened.contact_reference)`,
    )}
    select t.id, t.status as before, coalesce((select ${to}::text from moved), t.status) as after from target t`.execute(db);
  return rows[0];
}

/** Staff's stop (write:leads): 404 for another company's or an unknown search; 409 for a stopped one. */
export async function stopByStaff(db: Executor, companyId: string, id: string, causedBy: CausedBy, now: Date): Promise<void> {
  const stepped = await stepSearch(db, companyId, id, 'stopped', { causedBy, reason: 'staff' }, now);
  if (!stepped) throw notFound(`The saved search ${id}`);
  checkMove(savedSearchMachine, id, stepped.before, 'stopped', 'status');
}

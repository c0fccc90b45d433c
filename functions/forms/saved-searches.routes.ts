import { defineRoute, requireLeadType } from '../../lib/access';
import { createRouter } from '../../lib/app';
import { actorOf } from '../../lib/audit';
import { keyringOf } from '../../lib/crypto-jwe';
import { passesFormGuard } from '../../lib/form-guard';
import { narrowed, readOne, syncList } from '../../lib/resources';
import { type Handler, serverRoutes } from '../../lib/routes';
import { json, jsonBody, noQuery, problem } from '../../schema/common/api';
import {
  SavedSearchFormAnswer,
  SavedSearchFormInput,
  SavedSearchListSchema,
  SavedSearchMatchesQuery,
  SavedSearchMatchListSchema,
  SavedSearchParams,
  SavedSearchSchema,
  SavedSearchesQuery,
} from '../../schema/forms/saved-searches';
import { searchMatches } from './saved-search-list';
import { parseSearch, saveSearch, stopByStaff } from './saved-searches';
import { savedSearchResource, selectSavedSearches } from './saved-searches.present';

/**
 * Saved searches (issue 36; docs/api-reference.md, "Saved searches"): the visitor's form (a publishable key whose lead
 * types include `saved_search`, or a server key with `write:leads`), and staff's reads and stop with server keys.
 */

const saveRoute = defineRoute({
  method: 'post',
  path: '/saved-searches',
  tags: ['Forms'],
  summary: 'Save a listing search for alerts (a visitor’s form)',
  description:
    "From the visitor's browser with a publishable key whose lead types include `saved_search`, with `challenge`, consent and an email; or from the company's server with `write:leads`. The search is the query string of `GET /listings` that shows it (filters only). It is `pending` until the visitor confirms it at its `confirm_url`, which the company's CRM sends them on `saved_search.created` (the platform sends no email). The person is matched by email as a visitor's enquiry is, never changed.",
  access: { kind: 'form', scopes: ['write:leads'] },
  request: {
    body: jsonBody(SavedSearchFormInput, {
      search: 'q=marina&bedrooms=2&price_max=2500000',
      email: 'omar.said@example.com',
      language: 'en',
      consent: true,
      consent_version: '2026-01',
      challenge: 'XXXX.DUMMY.TOKEN.XXXX',
    }),
  },
  responses: {
    201: json(SavedSearchFormAnswer, 'Saved, pending the visitor’s confirmation'),
    403: problem(
      'Key unknown, revoked or of another company; origin not on the key (`origin_not_allowed`); `saved_search` not among the key’s lead types (`lead_type_not_allowed`); spam check failed (`challenge_failed`).',
    ),
    503: problem(
      'The spam check could not be asked (`spam_check_unavailable`), or no encryption key is configured for the link (`encryption_unavailable`); nothing was saved.',
    ),
  },
});

const staffRoute = serverRoutes('Saved searches', ['read:leads', 'write:leads']);

const listRoute = staffRoute('read:leads', {
  method: 'get',
  path: '/saved-searches',
  summary: 'Saved searches, in (updated_at, id) order for sync, with their links',
  request: { query: SavedSearchesQuery },
  responses: { 200: json(SavedSearchListSchema, 'A page of saved searches') },
});
const oneRoute = staffRoute('read:leads', {
  method: 'get',
  path: '/saved-searches/{saved_search_id}',
  summary: 'One saved search, with its links (`confirm_url` while pending, `stop_url`)',
  request: { params: SavedSearchParams, query: noQuery },
  responses: { 200: json(SavedSearchSchema, 'The saved search') },
});
const matchesRoute = staffRoute('read:leads', {
  method: 'get',
  path: '/saved-searches/{saved_search_id}/matches',
  summary: 'The listings a saved search found, newest first (what `saved_search.matched` announced, and its first check’s)',
  request: { params: SavedSearchParams, query: SavedSearchMatchesQuery },
  responses: { 200: json(SavedSearchMatchListSchema, 'A page of matches') },
});
const stopRoute = staffRoute('write:leads', {
  method: 'post',
  path: '/saved-searches/{saved_search_id}/stop',
  summary: 'Stop a saved search for its person (e.g. they asked by phone); `saved_search.stopped`',
  request: { params: SavedSearchParams },
  responses: {
    200: json(SavedSearchSchema, 'The saved search, stopped'),
    409: problem('`invalid_transition`: it is stopped already'),
  },
});

const origin = (url: string) => new URL(url).origin;

const saveSearchForm: Handler<typeof saveRoute> = async function saveSearchForm(c) {
  const { challenge, website, ...input } = c.req.valid('json');
  const { db, config, clientAddress, now } = c.var.services;
  const { company, caller } = c.var;
  const browser = caller.kind === 'publishable';
  let search: ReturnType<typeof parseSearch> | undefined;
  const check = async () => {
    search = parseSearch(input.search);
  };
  if (browser) {
    requireLeadType(caller, 'saved_search');
    // A bot that filled the hidden field gets the answer a person would, and nothing is saved.
    if (!(await passesFormGuard(c, { challenge, website }, check))) {
      return c.json({ saved_search_id: crypto.randomUUID(), status: 'pending' as const }, 201);
    }
  } else {
    await check();
  }
  const saved = await saveSearch(
    db,
    company,
    keyringOf(config),
    {
      search: search ?? parseSearch(input.search),
      email: input.email,
      name: input.name,
      language: input.language,
      consentVersion: input.consent_version,
      consentAddress: browser ? clientAddress : null,
    },
    actorOf(caller),
    now(),
  );
  return c.json({ saved_search_id: saved.id, status: 'pending' as const }, 201);
};

const listSearches: Handler<typeof listRoute> = async function listSearches(c) {
  const { status, contact, ...page } = c.req.valid('query');
  const resource = narrowed(savedSearchResource(origin(c.req.url)), selectSavedSearches, (query) => {
    let q = query;
    if (status) q = q.where('saved_searches.status', '=', status);
    if (contact) q = q.where('person.reference', '=', contact);
    return q;
  });
  return c.json(await syncList(c, resource, page), 200);
};

const getSearch: Handler<typeof oneRoute> = async function getSearch(c) {
  const id = c.req.valid('param').saved_search_id;
  return c.json(await readOne(c, savedSearchResource(origin(c.req.url)), 'id', id), 200);
};

const listMatches: Handler<typeof matchesRoute> = async function listMatches(c) {
  const id = c.req.valid('param').saved_search_id;
  return c.json(await searchMatches(c.var.services.db, c.var.company.id, id, c.req.valid('query')), 200);
};

const stopSearch: Handler<typeof stopRoute> = async function stopSearch(c) {
  const id = c.req.valid('param').saved_search_id;
  await stopByStaff(c.var.services.db, c.var.company.id, id, actorOf(c.var.caller), c.var.services.now());
  return c.json(await readOne(c, savedSearchResource(origin(c.req.url)), 'id', id), 200);
};

export const savedSearches = createRouter()
  .openapi(saveRoute, saveSearchForm)
  .openapi(listRoute, listSearches)
  .openapi(matchesRoute, listMatches)
  .openapi(oneRoute, getSearch)
  .openapi(stopRoute, stopSearch);

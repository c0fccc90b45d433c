import { beforeAll, describe, expect, it } from 'vitest';
import { matchSavedSearches } from '../../functions/forms/saved-search-matches';
import { randomToken } from '../../lib/crypto';
import { testClient } from '../support/client';
import { adminOf, createKey, demoCompany } from '../support/world';
import { anonymousOf, answer, book, day, newHome, origin, publishableKey, step, uniqueEmail, useStay } from '../stay/support';
import { developmentToken } from '../../lib/spam-check';

/**
 * Saved searches (issue 36; functions/forms/saved-searches*.ts): a visitor saves a search of GET /listings with a
 * publishable key, the CRM reads its links with a server key, the visitor confirms and stops it on its page, and
 * scheduled work announces each listing that starts matching it once (published, price lowered, dates freed).
 */
const ctx = useStay();
let pk: string;
let reader: string;
let writer: string;
/** A word only this file's listings carry: every search of the file is kept to them. */
const word = `alerts${randomToken(6).toLowerCase()}`;
const title = (n: number) => ({ title: { en: `Villa ${word} ${n}`, ar: `فيلا ${word} ${n}` } });

beforeAll(async () => {
  pk = await publishableKey(ctx.api, ctx.company.id, ['booking', 'saved_search']);
  reader = (await createKey(ctx.api, ctx.company.id, { scopes: ['read:leads', 'read:contacts'] })).secret;
  writer = (await createKey(ctx.api, ctx.company.id, { scopes: ['write:leads'] })).secret;
});

const formBody = (search: string, extra: Record<string, unknown> = {}) => ({
  search,
  email: uniqueEmail(),
  consent: true as const,
  consent_version: '2026-01',
  challenge: developmentToken,
  website: '',
  ...extra,
});

function save(body: unknown, key = pk, headers: Record<string, string> = {}) {
  return answer(
    anonymousOf(ctx).POST('/api/v1/saved-searches', {
      body: body as never,
      headers: { 'X-Api-Key': key, Origin: origin, 'x-test-client-address': '198.51.100.9', ...headers },
    }),
  );
}

const staff = (key = reader) => testClient(ctx.api, { host: ctx.company.host, serverKey: key });
const readSearch = (id: string, key = reader) =>
  answer(staff(key).GET('/api/v1/saved-searches/{saved_search_id}', { params: { path: { saved_search_id: id } } }));
const matchesOf = async (id: string) => {
  const res = await answer(
    staff().GET('/api/v1/saved-searches/{saved_search_id}/matches', {
      params: { path: { saved_search_id: id }, query: { page_size: 100 } },
    }),
  );
  expect(res.status, res.text).toBe(200);
  return res.json.results as Array<{ listing_id: string; slug: { en: string }; announced: boolean }>;
};
const counts = async () => {
  const of = (table: 'saved_searches' | 'contacts' | 'events') =>
    ctx.api.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('company_id', '=', ctx.company.id)
      .executeTakeFirstOrThrow()
      .then((row) => Number(row.n));
  return { searches: await of('saved_searches'), contacts: await of('contacts'), events: await of('events') };
};
const eventsOf = (type: string, id: string) =>
  ctx.api.db
    .selectFrom('events')
    .select(['type', 'data', 'caused_by'])
    .where('company_id', '=', ctx.company.id)
    .where('type', '=', type)
    .where(({ ref }) => ref('data', '->>').key('saved_search_id' as never), '=', id)
    .execute();

/** Page path of a link: the links are on the company's host, which the test API answers. */
const pathOf = (url: string) => new URL(url).pathname;
const page = (url: string, init: { method?: string; headers?: Record<string, string> } = {}) =>
  ctx.api.request(pathOf(url), { host: ctx.company.host, method: init.method ?? 'GET', headers: init.headers });

/** Saves and confirms a search (through its page's button, as the visitor does), and answers its id. */
async function confirmed(search: string): Promise<string> {
  const res = await save(formBody(search));
  expect(res.status, res.text).toBe(201);
  const read = await readSearch(res.json.saved_search_id);
  const pressed = await page(`${read.json.confirm_url}/confirmation`, {
    method: 'POST',
    headers: { 'Sec-Fetch-Site': 'same-origin' },
  });
  expect(pressed.status, pressed.text).toBe(303);
  return res.json.saved_search_id;
}

/** The slugs GET /listings shows for a search (every page). */
async function listed(search: string): Promise<string[]> {
  const slugs: string[] = [];
  let cursor: string | undefined;
  do {
    const query = Object.fromEntries(new URLSearchParams(search));
    const res = await answer(
      anonymousOf(ctx).GET('/api/v1/listings', { params: { query: { ...query, page_size: 100, cursor } as never } }),
    );
    expect(res.status, res.text).toBe(200);
    slugs.push(...res.json.results.map((r: { slug: { en: string } }) => r.slug.en));
    cursor = res.json.next_cursor ?? undefined;
  } while (cursor);
  return slugs.sort();
}

describe('saving a search', () => {
  it('answers 201 with the id and status only, matches the person by email and announces saved_search.created', async () => {
    const body = formBody(`?q=${word}&bedrooms=2&price_max=2500000`, { name: 'Omar Said', language: 'ar' });
    const res = await save(body);
    expect(res.status, res.text).toBe(201);
    expect(res.json).toEqual({ saved_search_id: expect.any(String), status: 'pending' });
    const read = await readSearch(res.json.saved_search_id);
    expect(read.status, read.text).toBe(200);
    expect(read.json).toMatchObject({
      status: 'pending',
      search: `price_max=2500000&bedrooms=2&q=${word}`,
      filters: { q: word, bedrooms: '2', price_max: '2500000' },
      language: 'ar',
      consent: { version: '2026-01' },
      matches: 0,
    });
    expect(read.json.confirm_url).toMatch(
      new RegExp(`^http://${ctx.company.host.replace('.', '\\.')}(:\\d+)?/saved-searches/[A-Za-z0-9]{32}$`),
    );
    expect(read.json.stop_url).toBe(`${read.json.confirm_url}/stop`);
    const contact = await answer(
      staff().GET('/api/v1/contacts/{reference}', { params: { path: { reference: read.json.contact } } }),
    );
    expect(contact.json.email).toBe(body.email);
    const [created] = await eventsOf('saved_search.created', res.json.saved_search_id);
    expect(created).toMatchObject({
      caused_by: 'website',
      data: { saved_search_id: res.json.saved_search_id, contact_reference: read.json.contact },
    });
    const row = await ctx.api.db
      .selectFrom('saved_searches')
      .selectAll()
      .where('id', '=', res.json.saved_search_id)
      .executeTakeFirstOrThrow();
    expect(row.consent_address).toBe('198.51.100.9');
    // Only the token's hash and its sealed copy are kept.
    const token = pathOf(read.json.confirm_url).split('/')[2] as string;
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it.each([
    ['sort=newest', 'search.sort'],
    ['page_size=5', 'search.page_size'],
    ['colour=blue', 'search.colour'],
    ['q=a&q=b', 'search.q'],
    ['price_min=abc', 'search.price_min'],
    ['price_min=5&price_max=4', 'search.price_max'],
    ['bbox=55.2,25.1,55.1,25.0', 'search.bbox'],
    ['check_in=2027-02-12', 'search.check_out'],
    [`q=${'x'.repeat(201)}`, 'search.q'],
  ])('refuses %s with a 400 at %s and keeps nothing', async (search, path) => {
    const before = await counts();
    const res = await save(formBody(search));
    expect(res.status, res.text).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.json.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect(await counts()).toEqual(before);
  });

  it('refuses a key that may not send saved searches, and answers a bot as a person but keeps nothing', async () => {
    const before = await counts();
    const bookingOnly = await publishableKey(ctx.api, ctx.company.id, ['booking']);
    const refused = await save(formBody(''), bookingOnly);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.json.code).toBe('lead_type_not_allowed');
    const bot = await save(formBody('', { website: 'http://spam.example' }));
    expect(bot.status, bot.text).toBe(201);
    expect(await counts()).toEqual(before);
    expect((await readSearch(bot.json.saved_search_id)).status).toBe(404);
  });

  it('takes a server key with write:leads (no challenge), and no other company reads it', async () => {
    const res = await answer(
      staff(writer).POST('/api/v1/saved-searches', {
        body: { search: 'type=sale', email: uniqueEmail(), consent: true, consent_version: '2026-01' },
      }),
    );
    expect(res.status, res.text).toBe(201);
    const other = await demoCompany(ctx.api);
    const otherKey = (await createKey(ctx.api, other.id, { scopes: ['read:leads', 'write:leads'] })).secret;
    const theirs = testClient(ctx.api, { host: other.host, serverKey: otherKey });
    const path = { params: { path: { saved_search_id: res.json.saved_search_id } } };
    expect((await answer(theirs.GET('/api/v1/saved-searches/{saved_search_id}', path))).status).toBe(404);
    expect((await answer(theirs.GET('/api/v1/saved-searches/{saved_search_id}/matches', path))).status).toBe(404);
    expect((await answer(theirs.POST('/api/v1/saved-searches/{saved_search_id}/stop', path))).status).toBe(404);
    const list = await answer(theirs.GET('/api/v1/saved-searches', { params: { query: { page_size: 100 } } }));
    expect(list.json.results.map((s: { saved_search_id: string }) => s.saved_search_id)).not.toContain(res.json.saved_search_id);
  });
});

describe('the visitor’s page', () => {
  it('confirms at the confirm link, and stops with one POST of the stop link (no Origin: a mail’s one-click)', async () => {
    const saved = await save(formBody(`q=${word}`));
    const read = await readSearch(saved.json.saved_search_id);
    const shown = await page(read.json.confirm_url);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('data-status="pending"');
    // A form of another site cannot confirm it.
    const forged = await page(read.json.confirm_url + '/confirmation', {
      method: 'POST',
      headers: { 'Sec-Fetch-Site': 'cross-site', Origin: 'https://evil.example' },
    });
    expect(forged.status).toBe(403);
    expect((await readSearch(saved.json.saved_search_id)).json.status).toBe('pending');

    const pressed = await page(`${read.json.confirm_url}/confirmation`, {
      method: 'POST',
      headers: { 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(pressed.status).toBe(303);
    const active = await readSearch(saved.json.saved_search_id);
    expect(active.json).toMatchObject({ status: 'active', confirm_url: null, page_url: read.json.confirm_url });
    expect(await eventsOf('saved_search.confirmed', saved.json.saved_search_id)).toHaveLength(1);

    const stopped = await page(read.json.stop_url, { method: 'POST' });
    expect(stopped.status).toBe(303);
    const after = await readSearch(saved.json.saved_search_id);
    expect(after.json).toMatchObject({ status: 'stopped', stop_reason: 'visitor', stop_url: null, page_url: null });
    expect((await page(read.json.confirm_url)).text).toContain('data-status="stopped"');
    // A second press changes nothing and announces nothing.
    expect((await page(read.json.stop_url, { method: 'POST' })).status).toBe(303);
    expect(await eventsOf('saved_search.stopped', saved.json.saved_search_id)).toHaveLength(1);
    // An unknown token, or the token on another host, is the page's 404.
    expect((await ctx.api.request(`/saved-searches/${randomToken(32)}`, { host: ctx.company.host })).status).toBe(404);
  });

  it('lets staff stop a search with write:leads (409 the second time)', async () => {
    const saved = await save(formBody(`q=${word}`));
    const stop = () =>
      answer(
        staff(writer).POST('/api/v1/saved-searches/{saved_search_id}/stop', {
          params: { path: { saved_search_id: saved.json.saved_search_id } },
        }),
      );
    const first = await stop();
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({ status: 'stopped', stop_reason: 'staff' });
    const second = await stop();
    expect(second.status, second.text).toBe(409);
    expect(second.json.code).toBe('invalid_transition');
  });
});

describe('matching (scheduled work)', () => {
  it('records what matched at the first check silently, then announces each listing that starts matching once', async () => {
    const a = await newHome(ctx, { price: '400.00', listing: title(1) });
    const b = await newHome(ctx, { price: '900.00', listing: title(2) });
    const search = `q=${word}&price_max=500`;
    const id = await confirmed(search);
    let at = new Date(Date.now());
    await matchSavedSearches(ctx.api.db, at);
    const first = await matchesOf(id);
    expect(first.map((m) => m.slug.en).sort()).toEqual(await listed(search));
    expect(first.every((m) => !m.announced)).toBe(true);
    expect(await eventsOf('saved_search.matched', id)).toHaveLength(0);

    // b's price lowered under the search's maximum; a new home published.
    await newHome(ctx, { slug: b, price: '450.00', listing: title(2) });
    const c = await newHome(ctx, { price: '300.00', listing: title(3) });
    // Within the recheck interval nothing is compared again.
    await matchSavedSearches(ctx.api.db, new Date(at.getTime() + 60_000));
    expect(await eventsOf('saved_search.matched', id)).toHaveLength(0);
    at = new Date(at.getTime() + 10 * 60_000);
    await matchSavedSearches(ctx.api.db, at);
    const matched = await eventsOf('saved_search.matched', id);
    const slugOf = new Map((await matchesOf(id)).map((m) => [m.listing_id, m.slug.en]));
    expect(matched.map((e) => slugOf.get((e.data as { listing_id: string }).listing_id)).sort()).toEqual([b, c].sort());
    expect(matched.every((e) => e.caused_by === 'system')).toBe(true);
    expect(Object.keys(matched[0]?.data as object).sort()).toEqual(['contact_reference', 'listing_id', 'saved_search_id']);
    expect((await matchesOf(id)).map((m) => m.slug.en).sort()).toEqual(await listed(search));
    expect((await readSearch(id)).json.matches).toBe(2);
    void a;

    // Once per listing and search: checked again, nothing more.
    await matchSavedSearches(ctx.api.db, new Date(at.getTime() + 10 * 60_000));
    expect(await eventsOf('saved_search.matched', id)).toHaveLength(2);
  });

  it('announces a holiday home whose dates were freed (the free-dates rule of GET /listings)', async () => {
    const home = await newHome(ctx, { price: '250.00', listing: title(9) });
    const stay = { check_in: day(40), check_out: day(43) };
    const booking = await book(ctx, home, stay.check_in, stay.check_out);
    const search = `q=${word}&check_in=${stay.check_in}&check_out=${stay.check_out}&guests=2`;
    const id = await confirmed(search);
    const at = new Date(Date.now());
    await matchSavedSearches(ctx.api.db, at);
    const first = (await matchesOf(id)).map((m) => m.slug.en).sort();
    expect(first).toEqual(await listed(search));
    expect(first).not.toContain(home);
    // The booking is cancelled: its nights are free again.
    expect((await step(ctx, booking.reference, 'cancel')).status).toBe(200);
    expect(await listed(search)).toContain(home);
    await matchSavedSearches(ctx.api.db, new Date(at.getTime() + 10 * 60_000));
    const matched = await eventsOf('saved_search.matched', id);
    expect(matched).toHaveLength(1);
    const slugOf = new Map((await matchesOf(id)).map((m) => [m.listing_id, m.slug.en]));
    expect(slugOf.get((matched[0]?.data as { listing_id?: string } | undefined)?.listing_id ?? '')).toBe(home);
  });

  it('never matches for a stopped search, nor for an erased person, whose searches stop', async () => {
    const saved = await save(formBody(`q=${word}`));
    const read = await readSearch(saved.json.saved_search_id);
    const erase = await answer(
      adminOf(ctx.api).POST('/admin/v1/companies/{company_id}/contacts/{reference}/erase', {
        params: { path: { company_id: ctx.company.id, reference: read.json.contact } },
      }),
    );
    expect(erase.status, erase.text).toBe(200);
    const after = await readSearch(saved.json.saved_search_id);
    expect(after.json).toMatchObject({ status: 'stopped', stop_reason: 'erased', confirm_url: null });
    const row = await ctx.api.db
      .selectFrom('saved_searches')
      .selectAll()
      .where('id', '=', saved.json.saved_search_id)
      .executeTakeFirstOrThrow();
    expect(row.consent_address).toBeNull();
    await newHome(ctx, { price: '100.00', listing: title(20) });
    await matchSavedSearches(ctx.api.db, new Date(Date.now() + 3_600_000));
    expect(await matchesOf(saved.json.saved_search_id)).toHaveLength(0);
  });
});

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../lib/events';
import { createTestApi, type TestApi } from '../support/harness';
import { createCompany, createKey } from '../support/world';
import { dispatch, fixtures, record } from './support';

/**
 * Events through the API (issue 38): GET /api/v1/events (newest first, the window, filters, pages, the payloads as
 * delivered) and GET /api/v1/events/feed (in order of commit, resumable, never skipping an event a slower
 * transaction commits later). Requests are raw: the routes are not yet in the generated clients (regenerated at merge).
 */
let api: TestApi;
const hooks = fixtures(() => api);
let setup: Awaited<ReturnType<typeof hooks.setup>>;
let other: { id: string; host: string };
type Caller = { key: string; host: string };
let key: Caller;
let otherKey: Caller;

beforeAll(async () => {
  api = await createTestApi({ ownDatabase: true });
  setup = await hooks.setup();
  other = await createCompany(api);
  key = await reader(setup.company);
  otherKey = await reader(other);
});
afterAll(async () => {
  await hooks.close();
  await api.close();
});

/** A server key of the company holding read:events, with the company's host. */
const reader = async (company: { id: string; host: string }): Promise<Caller> => ({
  key: (await createKey(api, company.id, { scopes: ['read:events'] })).secret,
  host: company.host,
});
// raw: the events routes are not in the generated clients yet
const get = (path: string, as = key) => api.request(`/api/v1${path}`, as);
const feed = (query: string, as = key) => get(`/events/feed${query ? `?${query}` : ''}`, as);

/**
 * Waits until the feed may hand out these events: until every transaction older than theirs has ended. On the
 * PostgreSQL server that bound is the whole cluster's (`pg_snapshot_xmin`: transaction ids are shared by its
 * databases), so a transaction of another database running beside this file (CI's workerd pass, a bench) holds the
 * feed back for a moment, as the feed promises; the test then waits for it rather than read too early. A condition
 * polled, never a time slept in place of one: it fails with the reason after 30 s.
 */
async function handedOut(ids: string[]): Promise<void> {
  for (const deadline = Date.now() + 30_000; ; ) {
    const { rows } = await sql<{ ready: boolean }>`
      select pg_snapshot_xmin(pg_current_snapshot())::text::bigint > max(txid) as ready from events
      where id in (${sql.join(ids)})`.execute(api.db);
    if (rows[0]?.ready) return;
    if (Date.now() > deadline) throw new Error('a transaction older than these events is still running');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('GET /api/v1/events', () => {
  it('answers the company’s events newest first, each exactly as its delivery’s body, and none of another company’s', async () => {
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push(await record(api, setup.company.id, 'lead.created', 'admin', { reference: `L-${n}` }));
    const theirs = await record(api, other.id, 'lead.created');
    await dispatch(api);
    const res = await get('/events?page_size=100');
    expect(res.status).toBe(200);
    const listed = res.json.results.map((e: { id: string }) => e.id);
    expect(listed.slice(0, 3)).toEqual([...ids].reverse());
    expect(listed).not.toContain(theirs);
    const bodies = new Map(setup.hook.requests.map((r) => [JSON.parse(r.body).id as string, r.body]));
    for (const event of res.json.results.filter((e: { id: string }) => ids.includes(e.id))) {
      expect(JSON.stringify(event)).toBe(bodies.get(event.id));
    }
    expect((await get('/events', otherKey)).json.results.map((e: { id: string }) => e.id)).toEqual([theirs]);
  });

  it('filters by type and time and pages with next_cursor', async () => {
    const company = await createCompany(api);
    const own = await reader(company);
    const first = await record(api, company.id, 'task.created', 'admin', { task_id: 't-1' });
    const { created_at } = await api.db
      .selectFrom('events')
      .select('created_at')
      .where('id', '=', first)
      .executeTakeFirstOrThrow();
    const second = await record(api, company.id, 'task.done', 'admin', { task_id: 't-1' });
    const third = await record(api, company.id, 'task.created', 'admin', { task_id: 't-2' });
    const ids = (path: string) => get(path, own).then((r) => r.json.results.map((e: { id: string }) => e.id));
    expect(await ids('/events?type=task.created')).toEqual([third, first]);
    const at = new Date(created_at).toISOString();
    expect(await ids(`/events?until=${at}`)).toEqual([]);
    expect(await ids(`/events?since=${at}`)).toEqual([third, second, first]);
    const page = await get('/events?page_size=2', own);
    expect(page.json.results.map((e: { id: string }) => e.id)).toEqual([third, second]);
    expect(await ids(`/events?page_size=2&cursor=${page.json.next_cursor}`)).toEqual([first]);
    expect((await get('/events?since=yesterday', own)).status).toBe(400);
  });

  it('keeps to the last 30 days of the services’ clock', async () => {
    const company = await createCompany(api);
    const own = await reader(company);
    const id = await record(api, company.id, 'task.created', 'admin', { task_id: 't-1' });
    const { created_at } = await api.db.selectFrom('events').select('created_at').where('id', '=', id).executeTakeFirstOrThrow();
    const day = 86_400_000;
    try {
      api.clock.set(new Date(new Date(created_at).getTime() + 30 * day - 1));
      expect((await get('/events', own)).json.results).toHaveLength(1);
      api.clock.set(new Date(new Date(created_at).getTime() + 30 * day + 1));
      expect((await get('/events', own)).json.results).toHaveLength(0);
      expect((await get('/events?since=2000-01-01T00:00:00Z', own)).json.results).toHaveLength(0);
    } finally {
      api.clock.set(null);
    }
  });
});

describe('GET /api/v1/events/feed', () => {
  it('starts now, then hands out what follows oldest first, resumable by cursor or by event id', async () => {
    const company = await createCompany(api);
    const own = await reader(company);
    const before = await record(api, company.id, 'task.created', 'admin', { task_id: 't-0' });
    const start = await feed('', own);
    expect(start.status).toBe(200);
    expect(start.json.results).toEqual([]);
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push(await record(api, company.id, 'task.created', 'admin', { task_id: `t-${n}` }));
    await record(api, other.id, 'task.created', 'admin', { task_id: 'theirs' });
    await handedOut(ids);
    const next = await feed(`cursor=${start.json.next_cursor}`, own);
    expect(next.json.results.map((e: { id: string }) => e.id)).toEqual(ids);
    expect(next.json.results[0]).toMatchObject({ type: 'task.created', caused_by: 'admin', data: { task_id: 't-1' } });
    // Caught up: no events, the same place.
    const idle = await feed(`cursor=${next.json.next_cursor}`, own);
    expect(idle.json).toEqual({ results: [], next_cursor: next.json.next_cursor });
    expect((await feed(`after=${ids[0]}`, own)).json.results.map((e: { id: string }) => e.id)).toEqual(ids.slice(1));
    expect((await feed(`after=${before}`, own)).json.results.map((e: { id: string }) => e.id)).toEqual(ids);
    const paged = await feed(`after=${before}&page_size=2`, own);
    expect(paged.json.results.map((e: { id: string }) => e.id)).toEqual(ids.slice(0, 2));
    expect((await feed(`cursor=${paged.json.next_cursor}`, own)).json.results.map((e: { id: string }) => e.id)).toEqual([ids[2]]);
  });

  it('orders by number, not by text: the events of one transaction in insert order past a power of ten', async () => {
    const company = await createCompany(api);
    const own = await reader(company);
    const start = (await feed('', own)).json.next_cursor;
    const ids = await api.db.transaction().execute(async (trx) => {
      const event = (task_id: string) =>
        recordEvent(trx, { companyId: company.id, type: 'task.created', causedBy: 'admin', data: { task_id } });
      return [await event('first'), await event('second')];
    });
    // Their places as 9 and 10, which sort the other way round as text.
    await api.db.updateTable('events').set({ position: '9' }).where('id', '=', ids[0]!).execute();
    await api.db.updateTable('events').set({ position: '10' }).where('id', '=', ids[1]!).execute();
    await handedOut(ids);
    const res = await feed(`cursor=${start}`, own);
    expect(res.json.results.map((e: { id: string }) => e.id)).toEqual(ids);
    expect((await feed(`cursor=${res.json.next_cursor}`, own)).json.results).toEqual([]);
  });

  it('refuses an unknown event, another company’s event, a forged cursor and both places at once (400)', async () => {
    const theirs = await record(api, other.id, 'task.created', 'admin', { task_id: 't' });
    const start = (await feed('')).json.next_cursor;
    for (const [query, field] of [
      ['after=evt_unknown', 'after'],
      [`after=${theirs}`, 'after'],
      ['cursor=forged', 'cursor'],
      [`cursor=${start}&after=${theirs}`, 'after'],
    ]) {
      const res = await feed(query as string);
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.json.errors[0].path, query).toBe(field);
    }
  });

  it('gives the admin API the same feed', async () => {
    const company = await createCompany(api);
    const start = await api.admin(`/companies/${company.id}/events/feed`);
    const id = await record(api, company.id, 'task.created', 'admin', { task_id: 't-1' });
    await handedOut([id]);
    const next = await api.admin(`/companies/${company.id}/events/feed?cursor=${start.json.next_cursor}`);
    expect(next.json.results.map((e: { id: string }) => e.id)).toEqual([id]);
    expect((await api.admin('/companies/00000000-0000-4000-8000-000000000000/events/feed')).status).toBe(404);
  });

  // Two transactions at once need two connections: PGlite has one.
  it.skipIf(!process.env.DATABASE_URL)(
    'holds back events committed after a transaction still running, then hands that one out first: nothing skipped',
    async () => {
      const company = await createCompany(api);
      const own = await reader(company);
      const start = (await feed('', own)).json.next_cursor;
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let recorded = () => {};
      const inserted = new Promise<void>((resolve) => (recorded = resolve));
      // The slow transaction records its event first (its transaction id is the older), and commits last.
      const slow = api.db.transaction().execute(async (trx) => {
        const id = await recordEvent(trx, {
          companyId: company.id,
          type: 'task.created',
          causedBy: 'admin',
          data: { task_id: 'slow' },
        });
        recorded();
        await held;
        return id;
      });
      await inserted;
      const quick = await record(api, company.id, 'task.created', 'admin', { task_id: 'quick' });
      const meanwhile = await feed(`cursor=${start}`, own);
      expect(meanwhile.json.results).toEqual([]);
      expect(meanwhile.json.next_cursor).toBe(start);
      release();
      const slowId = await slow;
      await handedOut([slowId, quick]);
      const after = await feed(`cursor=${meanwhile.json.next_cursor}`, own);
      expect(after.json.results.map((e: { id: string }) => e.id)).toEqual([slowId, quick]);
    },
  );
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markMissedViewings } from '../../functions/pipelines/viewings';
import { dispatchDue } from '../../lib/webhooks/local';
import { createTestApi } from '../support/harness';
import { type Receiver, startReceiver, verify } from '../webhooks/support';
import { pipelineWorld, type PipelineWorld } from './http';

/**
 * A sales CRM mirroring the company's deals and viewings, as the spec recommends: it takes the deal and viewing
 * events (verified), skips the echoes of its own writes, reads each record afterwards, and pulls `updated_since`
 * for what has no event (a new deal, a deal's PATCH). A scheduling tool books the viewings. At the end the CRM's
 * store equals the API's data.
 */

type Json = Record<string, any>;
const EVENTS = [
  'deal.stage_changed',
  'deal.won',
  'deal.lost',
  'viewing.planned',
  'viewing.updated',
  'viewing.done',
  'viewing.cancelled',
  'viewing.missed',
];
const OVERLAP_MS = 100;

let w: PipelineWorld;
let receiver: Receiver;
let secret: string;
let crmKey: { secret: string; prefix: string };
let toolKey: { secret: string; prefix: string };
const store = { deal: new Map<string, Json>(), viewing: new Map<string, Json>() };
const stats = { handled: 0, echoes: 0, reads: 0, pulled: 0 };
const handledIds = new Set<string>();
let lastPullStart = new Date(0);

beforeAll(async () => {
  // The dispatcher attempts every company's due deliveries: a database of this file alone.
  w = await pipelineWorld(await createTestApi({ ownDatabase: true }), { environment: 'development' });
  crmKey = await w.api.createKey(w.company.id, { scopes: ['read:pipelines', 'write:pipelines'] });
  toolKey = await w.api.createKey(w.company.id, { scopes: ['write:pipelines'] });
  receiver = await startReceiver();
  const created = await w.api.admin(`/companies/${w.company.id}/webhook-subscriptions`, {
    body: { url: `${receiver.url}/crm`, event_types: EVENTS },
  });
  if (created.status !== 201) throw new Error(created.text);
  secret = created.json.secret;
});
afterAll(async () => {
  await receiver?.close();
  await w?.api.close();
});

const as = (key: { secret: string }) => (path: string, body?: unknown, method?: string) =>
  w.api.request(`/api/v1${path}`, { host: w.company.host, key: key.secret, body, method });
const crm = (path: string, body?: unknown, method?: string) => as(crmKey)(path, body, method);
const tool = (path: string, body?: unknown, method?: string) => as(toolKey)(path, body, method);
const staff = (path: string, body?: unknown, method?: string) => w.write(path, body, {}, method);

/** Delivers everything due, then the CRM works every verified event it has not handled yet. */
async function deliverAndWork() {
  for (let due = -1; due !== 0; ) due = await dispatchDue(w.api.db, w.api.platform.webhooks);
  for (const request of receiver.requests) {
    const event = verify(secret, request) as Json;
    if (handledIds.has(event.id)) continue;
    handledIds.add(event.id);
    if (event.caused_by === `api:${crmKey.prefix}`) {
      stats.echoes++;
      continue;
    }
    const kind = event.type.startsWith('deal.') ? 'deal' : 'viewing';
    const res = await crm(`/${kind}s/${event.data.reference}`);
    expect(res.status, res.text).toBe(200);
    stats.reads++;
    store[kind].set(res.json.reference, res.json);
    stats.handled++;
  }
}

/** The periodic pull: every deal and viewing changed since the last pull started (a little before). */
async function pull() {
  const start = new Date();
  const since = new Date(lastPullStart.getTime() - OVERLAP_MS).toISOString();
  for (const kind of ['deal', 'viewing'] as const) {
    let cursor: string | null = null;
    do {
      const res: { json: { results: Json[]; next_cursor: string | null } } = await crm(
        `/${kind}s?page_size=2&updated_since=${since}${cursor ? `&cursor=${cursor}` : ''}`,
      );
      for (const record of res.json.results) store[kind].set(record.reference, record);
      stats.pulled += res.json.results.length;
      cursor = res.json.next_cursor;
    } while (cursor);
  }
  lastPullStart = start;
}

async function everything(kind: 'deal' | 'viewing') {
  const all: Json[] = [];
  let cursor: string | null = null;
  do {
    const res: { json: { results: Json[]; next_cursor: string | null } } = await crm(
      `/${kind}s?page_size=100${cursor ? `&cursor=${cursor}` : ''}`,
    );
    all.push(...res.json.results);
    cursor = res.json.next_cursor;
  } while (cursor);
  return Object.fromEntries(all.map((record) => [record.reference, record]));
}

describe('a CRM mirroring deals and viewings', () => {
  it('stays equal to the API through webhooks and updated_since, skipping its own echoes', async () => {
    // Staff add deals (no event announces a new deal): the pull finds them.
    const a = (await staff('/deals', { person: { email: 'a.buyer@example.com' }, home: 'marina-gate-2br-sea-view' })).json;
    const b = (
      await staff('/deals', { person: { email: 'b.renter@example.com' }, pipeline: 'leasing', home: 'jvc-2br-townhouse' })
    ).json;
    await pull();
    expect([...store.deal.keys()].sort()).toEqual([a.reference, b.reference].sort());

    // The CRM adds its own deal under its own id, and moves it: its echoes are skipped, its answers kept.
    const own = await crm('/deals', { person: { email: 'c.buyer@example.com' }, external: { source: 'crm', id: 'crm-deal-1' } });
    expect(own.status).toBe(201);
    store.deal.set(own.json.reference, own.json);
    const moved = await crm(`/deals/${own.json.reference}/move`, { stage: 'offer' });
    const { warnings: _, ...ownMoved } = moved.json;
    store.deal.set(own.json.reference, ownMoved);

    // Staff move and close deals; the scheduling tool books viewings; staff record how they went.
    await staff(`/deals/${a.reference}/move`, { stage: 'offer' });
    await staff(`/deals/${a.reference}/move`, { stage: 'won' });
    await staff(`/deals/${b.reference}/move`, { stage: 'lost', reason: 'Chose another area' });
    const v1 = (
      await tool('/viewings', { deal: a.reference, time: '2030-01-01T10:00:00Z', external: { source: 'calendly', id: 'bk-1' } })
    ).json;
    const v2 = (await tool('/viewings', { deal: own.json.reference, home: 'jvc-2br-townhouse', time: '2020-01-01T10:00:00Z' }))
      .json;
    await staff(`/viewings/${v1.reference}`, { status: 'done', feedback: 'Loved the balcony' }, 'PATCH');
    await deliverAndWork();
    expect(stats.echoes).toBe(1);
    expect(stats.handled).toBeGreaterThan(0);

    // Scheduled work marks the old viewing missed; staff rename a deal (no event: found by the pull).
    await markMissedViewings(w.api.db, new Date());
    await staff(`/deals/${a.reference}`, { title: 'Renamed by staff' }, 'PATCH');
    await deliverAndWork();
    await pull();

    const deals = await everything('deal');
    const viewings = await everything('viewing');
    expect(Object.fromEntries(store.deal)).toEqual(deals);
    expect(Object.fromEntries(store.viewing)).toEqual(viewings);
    expect(viewings[v2.reference]?.status).toBe('missed');
    expect(deals[a.reference]?.title).toBe('Renamed by staff');
    expect(deals[own.json.reference]?.external).toEqual([{ source: 'crm', id: 'crm-deal-1' }]);
  });
});

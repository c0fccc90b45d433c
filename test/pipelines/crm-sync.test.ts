import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPages, type components } from '../../clients/typescript/src/index';
import { markMissedViewings } from '../../functions/pipelines/viewings';
import { dispatchDue } from '../../lib/webhooks/local';
import type { TestClient } from '../support/client';
import { createTestApi } from '../support/harness';
import { type Key, world, type World } from '../support/world';
import { type Receiver, startReceiver, subscribe, verify } from '../webhooks/support';

/**
 * A sales CRM mirroring the company's deals and viewings, as the spec recommends: it takes the deal and viewing
 * events (verified), skips the echoes of its own writes, reads each record afterwards, and pulls `updated_since`
 * for what has no event (a new deal, a deal's PATCH). A scheduling tool books the viewings. At the end the CRM's
 * store equals the API's data.
 */

type Deal = components['schemas']['Deal'];
type Viewing = components['schemas']['Viewing'];
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

let w: World;
let receiver: Receiver;
let secret: string;
let crmKey: Key;
/** The CRM (its own key), the scheduling tool (its own key) and staff. */
let crm: TestClient;
let tool: TestClient;
let staff: TestClient;
const store = { deal: new Map<string, Deal>(), viewing: new Map<string, Viewing>() };
const stats = { handled: 0, echoes: 0, reads: 0, pulled: 0 };
const handledIds = new Set<string>();
let lastPullStart = new Date(0);

beforeAll(async () => {
  // The dispatcher attempts every company's due deliveries: a database of this file alone.
  w = await world({ api: await createTestApi({ ownDatabase: true }), environment: 'development' });
  await w.pipelines();
  crmKey = await w.keyWith(['read:pipelines', 'write:pipelines']);
  [crm, tool, staff] = await Promise.all([
    w.clientWith(crmKey.secret),
    w.clientWith(['write:pipelines']),
    w.clientWith(['write:pipelines']),
  ]);
  receiver = await startReceiver();
  ({ secret } = await subscribe(w.api, w.company.id, { url: `${receiver.url}/crm`, event_types: EVENTS }));
});
afterAll(async () => {
  await receiver?.close();
  await w?.api.close();
});

const path = (reference: string) => ({ params: { path: { reference } } });

/** Delivers everything due, then the CRM works every verified event it has not handled yet. */
async function deliverAndWork() {
  for (let due = -1; due !== 0; ) due = await dispatchDue(w.api.db, w.api.platform.webhooks);
  for (const request of receiver.requests) {
    const event = verify(secret, request);
    if (handledIds.has(event.id)) continue;
    handledIds.add(event.id);
    if (event.caused_by === `api:${crmKey.prefix}`) {
      stats.echoes++;
      continue;
    }
    const reference: string = event.data.reference;
    if (event.type.startsWith('deal.')) {
      const res = await crm.GET('/api/v1/deals/{reference}', path(reference));
      expect(res.response.status, JSON.stringify(res.error)).toBe(200);
      if (res.data) store.deal.set(res.data.reference, res.data);
    } else {
      const res = await crm.GET('/api/v1/viewings/{reference}', path(reference));
      expect(res.response.status, JSON.stringify(res.error)).toBe(200);
      if (res.data) store.viewing.set(res.data.reference, res.data);
    }
    stats.reads++;
    stats.handled++;
  }
}

/** The periodic pull: every deal and viewing changed since the last pull started (a little before). */
async function pull() {
  const start = new Date();
  const updated_since = new Date(lastPullStart.getTime() - OVERLAP_MS).toISOString();
  const query = (cursor: string | undefined) => ({ params: { query: { page_size: 2, updated_since, cursor } } });
  for await (const deal of allPages((cursor) => crm.GET('/api/v1/deals', query(cursor)))) {
    store.deal.set(deal.reference, deal);
    stats.pulled++;
  }
  for await (const viewing of allPages((cursor) => crm.GET('/api/v1/viewings', query(cursor)))) {
    store.viewing.set(viewing.reference, viewing);
    stats.pulled++;
  }
  lastPullStart = start;
}

/** Every record of a list, by reference. */
async function everything<Row extends { reference: string }>(rows: AsyncIterable<Row>) {
  const all: Row[] = [];
  for await (const row of rows) all.push(row);
  return Object.fromEntries(all.map((record) => [record.reference, record]));
}
const query = (cursor: string | undefined) => ({ params: { query: { page_size: 100, cursor } } });

describe('a CRM mirroring deals and viewings', () => {
  it('stays equal to the API through webhooks and updated_since, skipping its own echoes', async () => {
    const deal = async (body: components['schemas']['DealInput']) => {
      const { data, error } = await staff.POST('/api/v1/deals', { body });
      if (!data) throw new Error(JSON.stringify(error));
      return data;
    };
    const move = (client: TestClient, reference: string, body: components['schemas']['DealMove']) =>
      client.POST('/api/v1/deals/{reference}/move', { ...path(reference), body });
    const plan = async (body: components['schemas']['ViewingInput']) => {
      const { data, error } = await tool.POST('/api/v1/viewings', { body });
      if (!data) throw new Error(JSON.stringify(error));
      return data;
    };

    // Staff add deals (no event announces a new deal): the pull finds them.
    const a = await deal({ person: { email: 'a.buyer@example.com' }, home: 'marina-gate-2br-sea-view' });
    const b = await deal({ person: { email: 'b.renter@example.com' }, pipeline: 'leasing', home: 'jvc-2br-townhouse' });
    await pull();
    expect([...store.deal.keys()].sort()).toEqual([a.reference, b.reference].sort());

    // The CRM adds its own deal under its own id, and moves it: its echoes are skipped, its answers kept.
    const own = await crm.POST('/api/v1/deals', {
      body: { person: { email: 'c.buyer@example.com' }, external: { source: 'crm', id: 'crm-deal-1' } },
    });
    expect(own.response.status).toBe(201);
    const ownReference = own.data?.reference ?? '';
    if (own.data) store.deal.set(ownReference, own.data);
    const moved = await move(crm, ownReference, { stage: 'offer' });
    if (moved.data) {
      const { warnings: _, ...ownMoved } = moved.data;
      store.deal.set(ownReference, ownMoved);
    }

    // Staff move and close deals; the scheduling tool books viewings; staff record how they went.
    await move(staff, a.reference, { stage: 'offer' });
    await move(staff, a.reference, { stage: 'won' });
    await move(staff, b.reference, { stage: 'lost', reason: 'Chose another area' });
    const v1 = await plan({ deal: a.reference, time: '2030-01-01T10:00:00Z', external: { source: 'calendly', id: 'bk-1' } });
    const v2 = await plan({ deal: ownReference, home: 'jvc-2br-townhouse', time: '2020-01-01T10:00:00Z' });
    await staff.PATCH('/api/v1/viewings/{reference}', {
      ...path(v1.reference),
      body: { status: 'done', feedback: 'Loved the balcony' },
    });
    await deliverAndWork();
    expect(stats.echoes).toBe(1);
    expect(stats.handled).toBeGreaterThan(0);

    // Scheduled work marks the old viewing missed; staff rename a deal (no event: found by the pull).
    await markMissedViewings(w.api.db, new Date());
    await staff.PATCH('/api/v1/deals/{reference}', { ...path(a.reference), body: { title: 'Renamed by staff' } });
    await deliverAndWork();
    await pull();

    const deals = await everything(allPages((cursor) => crm.GET('/api/v1/deals', query(cursor))));
    const viewings = await everything(allPages((cursor) => crm.GET('/api/v1/viewings', query(cursor))));
    expect(Object.fromEntries(store.deal)).toEqual(deals);
    expect(Object.fromEntries(store.viewing)).toEqual(viewings);
    expect(viewings[v2.reference]?.status).toBe('missed');
    expect(deals[a.reference]?.title).toBe('Renamed by staff');
    expect(deals[ownReference]?.external).toEqual([{ source: 'crm', id: 'crm-deal-1' }]);
  });
});

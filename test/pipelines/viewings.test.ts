import { beforeAll, describe, expect, it } from 'vitest';
import { markMissedViewings, missedAfterHours } from '../../functions/pipelines/viewings';
import type { TestClient } from '../support/client';
import { type Key, useWorld } from '../support/world';

const w = useWorld();
let writer: Key;
let writes: TestClient;
let reads: TestClient;
let deal: { reference: string; home: string | null };
beforeAll(async () => {
  writer = await w.keyWith(['write:pipelines']);
  [writes, reads] = await Promise.all([w.clientWith(writer.secret), w.clientWith(['read:pipelines'])]);
  deal = await w.deal({ home: 'marina-gate-2br-sea-view' });
});

const time = '2030-05-01T10:00:00.000Z';
/** POST /viewings of a body as sent (any JSON: the refusals too). */
const post = (body: Record<string, unknown>) => writes.POST('/api/v1/viewings', { body: body as never });
const plan = async (body: Record<string, unknown> = {}) => {
  const { data, error } = await post({ deal: deal.reference, time, ...body });
  if (!data) throw new Error(JSON.stringify(error));
  return data;
};
const patch = (reference: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  writes.PATCH('/api/v1/viewings/{reference}', { params: { path: { reference } }, body: body as never, headers });
const read = (reference: string) => reads.GET('/api/v1/viewings/{reference}', { params: { path: { reference } } });
const list = async (query: { deal?: string; external?: string; status?: 'planned' | 'done' | 'cancelled' | 'missed' }) =>
  (await reads.GET('/api/v1/viewings', { params: { query } })).data?.results;

describe('POST /viewings', () => {
  it('plans a viewing on a deal, of its home by default (201, viewing.planned)', async () => {
    const res = await post({ deal: deal.reference, time: '2030-05-01T14:00:00+04:00', shown_by: w.members.lina });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data).toMatchObject({
      deal: deal.reference,
      home: deal.home,
      time,
      shown_by: w.members.lina,
      status: 'planned',
      feedback: null,
      external: [],
    });
    expect(res.data?.reference).toMatch(/^V-[0-9A-HJKMNP-TV-Z]{10}$/);
    expect(await w.eventsOf(res.data?.reference ?? '')).toEqual(['viewing.planned']);
  });

  it('refuses an unknown deal, home or member, and a deal without a home when none is sent (400)', async () => {
    const homeless = await w.deal();
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ deal: 'D-0000000000' }, 'deal', 'unknown_reference'],
      [{ home: 'no-such-home' }, 'home', 'unknown_reference'],
      [{ shown_by: 'mem_nobody' }, 'shown_by', 'unknown_reference'],
      [{ deal: homeless.reference }, 'home', 'no_home'],
    ];
    for (const [override, path, code] of cases) {
      const res = await post({ deal: deal.reference, time, ...override });
      expect(res.response.status, JSON.stringify(res.error)).toBe(400);
      expect(res.error?.errors).toEqual([expect.objectContaining({ path, code })]);
    }
    expect((await post({ deal: homeless.reference, time, home: 'jvc-2br-townhouse' })).response.status).toBe(201);
    expect((await post({ deal: deal.reference, time: '2030-05-01T10:00:00' })).response.status).toBe(400);
  });

  it('answers the first viewing (200) for the same booking id', async () => {
    const external = { source: 'calendly', id: `booking-${w.unique()}` };
    const first = await plan({ external });
    const again = await post({ deal: deal.reference, time: '2031-01-01T00:00:00Z', external });
    expect(again.response.status).toBe(200);
    expect(again.data).toEqual(first);
    expect(await w.eventsOf(first.reference)).toEqual(['viewing.planned']);
    const listed = await list({ external: `calendly:${external.id}` });
    expect(listed?.map((v) => v.reference)).toEqual([first.reference]);
  });
});

describe('GET /viewings', () => {
  it('reads one (ETag), 404 for an unknown one, and lists by deal and status', async () => {
    const viewing = await plan();
    const one = await read(viewing.reference);
    expect(one.data).toEqual(viewing);
    expect(one.response.headers.get('ETag')).toBe('"v1"');
    expect((await read('V-0000000000')).response.status).toBe(404);
    const other = await w.deal({ home: 'jvc-2br-townhouse' });
    const mine = (await post({ deal: other.reference, time })).data;
    expect((await list({ deal: other.reference }))?.map((v) => v.reference)).toEqual([mine?.reference]);
    expect(await list({ deal: other.reference, status: 'done' })).toEqual([]);
  });
});

describe('PATCH /viewings/{reference}', () => {
  it('changes time, home and who shows it (viewing.updated), nothing for the same values', async () => {
    const viewing = await plan();
    const res = await patch(viewing.reference, {
      time: '2030-05-02T09:00:00Z',
      home: 'jvc-2br-townhouse',
      shown_by: w.members.lina,
    });
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data).toMatchObject({ time: '2030-05-02T09:00:00.000Z', home: 'jvc-2br-townhouse', shown_by: w.members.lina });
    const same = await patch(viewing.reference, { time: '2030-05-02T09:00:00Z', shown_by: w.members.lina });
    expect(same.response.headers.get('ETag')).toBe('"v2"');
    expect(await w.eventsOf(viewing.reference)).toEqual(['viewing.planned', 'viewing.updated']);
  });

  it('records it done with its feedback (viewing.done); a done viewing keeps its time, takes feedback', async () => {
    w.api.clock.set(new Date('2030-05-01T11:00:00.000Z'));
    try {
      const viewing = await plan();
      const done = await patch(viewing.reference, { status: 'done', feedback: 'Liked the view' });
      expect(done.data).toMatchObject({ status: 'done', feedback: 'Liked the view', done_at: '2030-05-01T11:00:00.000Z' });
      const moved = await patch(viewing.reference, { time: '2030-06-01T10:00:00Z' });
      expect(moved.response.status).toBe(409);
      expect(moved.error?.code).toBe('invalid_transition');
      expect(moved.error?.allowed).toEqual([]);
      expect(moved.error?.errors?.[0]).toMatchObject({ path: 'time', code: 'invalid_transition' });
      expect((await patch(viewing.reference, { status: 'cancelled' })).response.status).toBe(409);
      expect((await patch(viewing.reference, { feedback: 'Second visit wanted' })).data?.feedback).toBe('Second visit wanted');
      expect(await w.eventsOf(viewing.reference)).toEqual(['viewing.planned', 'viewing.done', 'viewing.updated']);
    } finally {
      w.api.clock.set(null);
    }
  });

  it('cancels a planned viewing (viewing.cancelled), after which it takes no change', async () => {
    const viewing = await plan();
    const cancelled = await patch(viewing.reference, { status: 'cancelled' });
    expect(cancelled.data?.status).toBe('cancelled');
    expect(cancelled.data?.cancelled_at).not.toBeNull();
    for (const body of [{ status: 'done' }, { feedback: 'x' }, { time }, { status: 'missed' }]) {
      const refused = await patch(viewing.reference, body);
      expect(refused.response.status, JSON.stringify(body)).toBe(409);
      // Through lib/transitions.ts, feedback included: the statuses it may still move to (none: cancelled is final).
      expect([refused.error?.code, refused.error?.allowed], JSON.stringify(body)).toEqual(['invalid_transition', []]);
    }
    const feedback = await patch(viewing.reference, { feedback: 'x' });
    const said = `The viewing ${viewing.reference} is cancelled and takes no feedback (only when planned, missed or done); allowed next: none (final).`;
    expect(feedback.error?.errors).toEqual([{ path: 'feedback', code: 'invalid_transition', message: said }]);
    expect(feedback.error?.detail).toBe(said);
    const external = { source: 'calendly', id: `c-${w.unique()}` };
    expect((await patch(viewing.reference, { external })).data?.external).toEqual([external]);
    expect(await w.eventsOf(viewing.reference)).toEqual(['viewing.planned', 'viewing.cancelled']);
  });

  it('refuses a stale If-Match (412)', async () => {
    const viewing = await plan();
    await patch(viewing.reference, { shown_by: w.members.lina });
    expect((await patch(viewing.reference, { shown_by: null }, { 'If-Match': '"v1"' })).response.status).toBe(412);
  });
});

describe('missed viewings (scheduled work)', () => {
  it(`marks a viewing still planned ${missedAfterHours} hours after its time missed, once, as system`, async () => {
    const start = new Date('2029-03-01T10:00:00.000Z');
    const viewing = await plan({ time: start.toISOString() });
    const done = await plan({ time: start.toISOString() });
    await patch(done.reference, { status: 'done' });
    const justBefore = new Date(start.getTime() + missedAfterHours * 3_600_000 - 1);
    expect(await markMissedViewings(w.api.db, justBefore)).not.toContain(viewing.reference);
    const after = new Date(start.getTime() + missedAfterHours * 3_600_000);
    expect(await markMissedViewings(w.api.db, after)).toContain(viewing.reference);
    expect(await markMissedViewings(w.api.db, after)).not.toContain(viewing.reference);
    expect((await read(viewing.reference)).data).toMatchObject({ status: 'missed', missed_at: after.toISOString() });
    expect((await read(done.reference)).data?.status).toBe('done');
    const events = (await w.allEvents()).filter((e) => e.data.reference === viewing.reference);
    expect(events.map((e) => [e.type, e.caused_by])).toEqual([
      ['viewing.planned', `api:${writer.prefix}`],
      ['viewing.missed', 'system'],
    ]);
    // Recorded later as done, or given a new time (planned again).
    const replanned = await patch(viewing.reference, { time: '2031-01-01T10:00:00Z' });
    expect(replanned.data).toMatchObject({ status: 'planned', missed_at: null });
    expect(await w.eventsOf(viewing.reference)).toEqual(['viewing.planned', 'viewing.missed', 'viewing.planned']);
  });

  it('runs as the group’s job with the services’ clock', async () => {
    const { pipelineJobs } = await import('../../functions/pipelines/jobs');
    const viewing = await plan({ time: '2029-04-01T10:00:00.000Z' });
    w.api.clock.set(new Date('2029-04-03T00:00:00.000Z'));
    try {
      const job = pipelineJobs.find((j) => j.name === 'viewing_missed');
      await job?.run(w.api.platform.services());
      expect((await read(viewing.reference)).data?.status).toBe('missed');
    } finally {
      w.api.clock.set(null);
    }
  });
});

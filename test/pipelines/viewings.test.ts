import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markMissedViewings, missedAfterHours } from '../../functions/pipelines/viewings';
import { pipelineWorld, type PipelineWorld } from './http';

let w: PipelineWorld;
let deal: { reference: string; home: string };
beforeAll(async () => {
  w = await pipelineWorld();
  deal = await w.deal({ home: 'marina-gate-2br-sea-view' });
});
afterAll(() => w.api.close());

const time = '2030-05-01T10:00:00.000Z';
const plan = async (body: Record<string, unknown> = {}) => {
  const res = await w.write('/viewings', { deal: deal.reference, time, ...body });
  if (res.status !== 201) throw new Error(res.text);
  return res.json;
};
const patch = (reference: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  w.write(`/viewings/${reference}`, body, headers, 'PATCH');

describe('POST /viewings', () => {
  it('plans a viewing on a deal, of its home by default (201, viewing.planned)', async () => {
    const res = await w.write('/viewings', { deal: deal.reference, time: '2030-05-01T14:00:00+04:00', shown_by: w.handler });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({
      deal: deal.reference,
      home: deal.home,
      time,
      shown_by: w.handler,
      status: 'planned',
      feedback: null,
      external: [],
    });
    expect(res.json.reference).toMatch(/^V-[0-9A-HJKMNP-TV-Z]{10}$/);
    expect(await w.eventsOf(res.json.reference)).toEqual(['viewing.planned']);
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
      const res = await w.write('/viewings', { deal: deal.reference, time, ...override });
      expect(res.status, res.text).toBe(400);
      expect(res.json.errors).toEqual([expect.objectContaining({ path, code })]);
    }
    expect((await w.write('/viewings', { deal: homeless.reference, time, home: 'jvc-2br-townhouse' })).status).toBe(201);
    expect((await w.write('/viewings', { deal: deal.reference, time: '2030-05-01T10:00:00' })).status).toBe(400);
  });

  it('answers the first viewing (200) for the same booking id', async () => {
    const external = { source: 'calendly', id: `booking-${w.unique()}` };
    const first = await plan({ external });
    const again = await w.write('/viewings', { deal: deal.reference, time: '2031-01-01T00:00:00Z', external });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first);
    expect(await w.eventsOf(first.reference)).toEqual(['viewing.planned']);
    const listed = await w.get(`/viewings?external=calendly:${external.id}`);
    expect(listed.json.results.map((v: { reference: string }) => v.reference)).toEqual([first.reference]);
  });
});

describe('GET /viewings', () => {
  it('reads one (ETag), 404 for an unknown one, and lists by deal and status', async () => {
    const viewing = await plan();
    const one = await w.get(`/viewings/${viewing.reference}`);
    expect(one.json).toEqual(viewing);
    expect(one.headers.get('ETag')).toBe('"v1"');
    expect((await w.get('/viewings/V-0000000000')).status).toBe(404);
    const other = await w.deal({ home: 'jvc-2br-townhouse' });
    const mine = (await w.write('/viewings', { deal: other.reference, time })).json;
    expect(
      (await w.get(`/viewings?deal=${other.reference}`)).json.results.map((v: { reference: string }) => v.reference),
    ).toEqual([mine.reference]);
    expect((await w.get(`/viewings?deal=${other.reference}&status=done`)).json.results).toEqual([]);
  });
});

describe('PATCH /viewings/{reference}', () => {
  it('changes time, home and who shows it (viewing.updated), nothing for the same values', async () => {
    const viewing = await plan();
    const res = await patch(viewing.reference, { time: '2030-05-02T09:00:00Z', home: 'jvc-2br-townhouse', shown_by: w.handler });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ time: '2030-05-02T09:00:00.000Z', home: 'jvc-2br-townhouse', shown_by: w.handler });
    const same = await patch(viewing.reference, { time: '2030-05-02T09:00:00Z', shown_by: w.handler });
    expect(same.headers.get('ETag')).toBe('"v2"');
    expect(await w.eventsOf(viewing.reference)).toEqual(['viewing.planned', 'viewing.updated']);
  });

  it('records it done with its feedback (viewing.done); a done viewing keeps its time, takes feedback', async () => {
    w.api.clock.set(new Date('2030-05-01T11:00:00.000Z'));
    try {
      const viewing = await plan();
      const done = await patch(viewing.reference, { status: 'done', feedback: 'Liked the view' });
      expect(done.json).toMatchObject({ status: 'done', feedback: 'Liked the view', done_at: '2030-05-01T11:00:00.000Z' });
      const moved = await patch(viewing.reference, { time: '2030-06-01T10:00:00Z' });
      expect(moved.status).toBe(409);
      expect(moved.json.code).toBe('invalid_transition');
      expect((await patch(viewing.reference, { status: 'cancelled' })).status).toBe(409);
      expect((await patch(viewing.reference, { feedback: 'Second visit wanted' })).json.feedback).toBe('Second visit wanted');
      expect(await w.eventsOf(viewing.reference)).toEqual(['viewing.planned', 'viewing.done', 'viewing.updated']);
    } finally {
      w.api.clock.set(null);
    }
  });

  it('cancels a planned viewing (viewing.cancelled), after which it takes no change', async () => {
    const viewing = await plan();
    const cancelled = await patch(viewing.reference, { status: 'cancelled' });
    expect(cancelled.json.status).toBe('cancelled');
    expect(cancelled.json.cancelled_at).not.toBeNull();
    for (const body of [{ status: 'done' }, { feedback: 'x' }, { time }, { status: 'missed' }]) {
      expect((await patch(viewing.reference, body)).status, JSON.stringify(body)).toBe(409);
    }
    const external = { source: 'calendly', id: `c-${w.unique()}` };
    expect((await patch(viewing.reference, { external })).json.external).toEqual([external]);
    expect(await w.eventsOf(viewing.reference)).toEqual(['viewing.planned', 'viewing.cancelled']);
  });

  it('refuses a stale If-Match (412)', async () => {
    const viewing = await plan();
    await patch(viewing.reference, { shown_by: w.handler });
    expect((await patch(viewing.reference, { shown_by: null }, { 'If-Match': '"v1"' })).status).toBe(412);
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
    const read = (await w.get(`/viewings/${viewing.reference}`)).json;
    expect(read).toMatchObject({ status: 'missed', missed_at: after.toISOString() });
    expect((await w.get(`/viewings/${done.reference}`)).json.status).toBe('done');
    const events = (await w.events()).filter((e) => e.data.reference === viewing.reference);
    expect(events.map((e) => [e.type, e.caused_by])).toEqual([
      ['viewing.planned', `api:${w.writer.prefix}`],
      ['viewing.missed', 'system'],
    ]);
    // Recorded later as done, or given a new time (planned again).
    const replanned = await patch(viewing.reference, { time: '2031-01-01T10:00:00Z' });
    expect(replanned.json).toMatchObject({ status: 'planned', missed_at: null });
    expect(await w.eventsOf(viewing.reference)).toEqual(['viewing.planned', 'viewing.missed', 'viewing.planned']);
  });

  it('runs as the group’s job with the services’ clock', async () => {
    const { pipelineJobs } = await import('../../functions/pipelines/jobs');
    const viewing = await plan({ time: '2029-04-01T10:00:00.000Z' });
    w.api.clock.set(new Date('2029-04-03T00:00:00.000Z'));
    try {
      const job = pipelineJobs.find((j) => j.name === 'viewing_missed');
      await job?.run(w.api.platform.services());
      expect((await w.get(`/viewings/${viewing.reference}`)).json.status).toBe('missed');
    } finally {
      w.api.clock.set(null);
    }
  });
});

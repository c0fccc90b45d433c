import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookingBody, type Ctx, countBookings, newHome, postBooking, setup } from '../stay/support';
import { createKey } from '../support/world';

/**
 * Dates and instants at the edges (docs/api-reference.md, "Dates and instants"): calendar dates and instants
 * from 1900 to 2999 are taken, others are refused with 400 `invalid_request` naming the field, and nothing is
 * written. Year 0000 used to reach the database and answer 500.
 */

let ctx: Ctx;
let home: string;
let key: string;
let task: string;

const request = (path: string, o: { method?: string; body?: unknown } = {}) =>
  ctx.api.request(`/api/v1${path}`, { host: ctx.company.host, key, ...o });
let serial = 0;
const newLead = async (): Promise<string> =>
  (await request('/leads', { body: { consent: true, consent_version: 'v1', email: `edge.${serial++}@example.com` } })).json
    .reference;

beforeAll(async () => {
  ctx = await setup();
  home = await newHome(ctx);
  key = (
    await createKey(ctx.api, ctx.company.id, {
      scopes: [
        'read:listings',
        'read:leads',
        'write:leads',
        'read:contacts',
        'write:contacts',
        'read:followups',
        'write:followups',
        'read:members',
      ],
    })
  ).secret;
  task = (await request('/tasks', { body: { title: 'Edge', source: 'crm', external_id: 'edge-1', due_on: '2026-12-01' } })).json
    .task_id;
}, 60_000);
afterAll(() => ctx.api.close());

/** The paths of a 400 `invalid_request` answer's `errors`. */
function refusedPaths(res: { status: number; json?: { code?: string; errors?: Array<{ path: string }> }; text: string }) {
  expect(res.status, res.text).toBe(400);
  expect(res.json?.code).toBe('invalid_request');
  return (res.json?.errors ?? []).map((e) => e.path);
}

describe('holiday homes: availability, quotes and booking requests', () => {
  it.each(['0000-01-01', '1899-12-31', '3000-01-01'])('refuses availability from %s', async (from) => {
    const res = await request(`/listings/${home}/availability?from=${from}`);
    expect(refusedPaths(res)).toContain('from');
  });

  it.each([
    ['0000-01-01', '0000-01-04'],
    ['0000-12-31', '0001-01-02'],
  ])('refuses a quote and a booking request from %s to %s, and books nothing', async (checkIn, checkOut) => {
    const quote = await request(`/listings/${home}/quote?check_in=${checkIn}&check_out=${checkOut}&guests=1`);
    expect(refusedPaths(quote)).toContain('check_in');
    const before = await countBookings(ctx, home);
    const booking = await postBooking(ctx, bookingBody(home, checkIn, checkOut));
    expect(refusedPaths(booking)).toEqual(expect.arrayContaining(['check_in', 'check_out']));
    expect(await countBookings(ctx, home)).toBe(before);
  });

  it('refuses booking terms and blocks with dates out of range', async () => {
    const admin = `/companies/${ctx.company.id}/listings/${home}`;
    const terms = await ctx.api.admin(`${admin}/booking-terms`, { method: 'PUT', body: { available_from: '0000-01-01' } });
    expect(refusedPaths(terms)).toContain('available_from');
    const block = await ctx.api.admin(`${admin}/blocks`, {
      body: { reason: 'owner', starts_on: '0000-01-01', ends_on: '0000-01-05' },
    });
    expect(refusedPaths(block)).toEqual(expect.arrayContaining(['starts_on', 'ends_on']));
  });
});

describe('tasks: due_on', () => {
  it.each(['0000-01-01', '1899-12-31', '3000-01-01', '2027-02-29', '2026-02-30'])(
    'refuses due_on %s on POST and PATCH',
    async (due) => {
      const posted = await request('/tasks', { body: { title: 'Edge', source: 'crm', external_id: `edge-${due}`, due_on: due } });
      expect(refusedPaths(posted)).toEqual(['due_on']);
      const patched = await request(`/tasks/${task}`, { method: 'PATCH', body: { due_on: due } });
      expect(refusedPaths(patched)).toEqual(['due_on']);
      expect((await request(`/tasks/${task}`)).json.due_on).toBe('2026-12-01');
    },
  );

  it('says whether a date is malformed or out of range', async () => {
    const codeOf = async (due: string) =>
      (await request(`/tasks/${task}`, { method: 'PATCH', body: { due_on: due } })).json.errors[0].code;
    expect([await codeOf('2027-02-29'), await codeOf('0000-01-01'), await codeOf('3000-01-01')]).toEqual([
      'invalid_format',
      'out_of_range',
      'out_of_range',
    ]);
  });

  it.each(['1900-01-01', '2028-02-29', '2999-12-31'])('takes due_on %s', async (due) => {
    const res = await request(`/tasks/${task}`, { method: 'PATCH', body: { due_on: due } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.due_on).toBe(due);
  });
});

describe('instants: updated_since, occurred_at, next_action.due_at', () => {
  const syncLists = ['contacts', 'leads', 'activities', 'tasks', 'members', 'departments'];
  const outOfRange = [
    '0000-01-01T00:00:00Z',
    '1899-12-31T23:59:59.999Z',
    '1900-01-01T00:30:00+01:00', // 1899-12-31T23:30Z
    '2999-12-31T23:30:00-01:00', // 3000-01-01T00:30Z
    '3000-01-01T00:00:00Z',
  ];
  const malformed = ['2026-01-01T00:00:00', '2026-02-30T00:00:00Z', '2026-01-01', '2026-01-01T00:00:00+24:00'];

  it.each([...outOfRange, ...malformed])('refuses updated_since=%s on every sync list', async (since) => {
    for (const list of syncLists) {
      const res = await request(`/${list}?updated_since=${encodeURIComponent(since)}`);
      expect(refusedPaths(res), list).toEqual(['updated_since']);
    }
  });

  it.each(['1900-01-01T00:00:00Z', '1970-01-01T00:00:00Z', '2999-12-31T23:59:59.999Z', '2026-01-01T00:00:00+14:00'])(
    'takes updated_since=%s',
    async (since) => {
      for (const list of syncLists)
        expect((await request(`/${list}?updated_since=${encodeURIComponent(since)}`)).status).toBe(200);
    },
  );

  it.each([...outOfRange, ...malformed])('refuses occurred_at and next_action.due_at %s, and writes nothing', async (at) => {
    const lead = await newLead();
    const activity = await request('/activities', {
      body: { type: 'call', source: 'crm', external_id: `edge-${at}`, lead, occurred_at: at },
    });
    expect(refusedPaths(activity)).toEqual(['occurred_at']);
    const patched = await request(`/leads/${lead}`, { method: 'PATCH', body: { next_action: { text: 'Call', due_at: at } } });
    expect(refusedPaths(patched)).toEqual(['next_action.due_at']);
    const after = (await request(`/leads/${lead}`)).json;
    expect([after.next_action, after.first_answered_at]).toEqual([null, null]);
  });

  it('normalises an offset to UTC', async () => {
    const lead = await newLead();
    const activity = await request('/activities', {
      body: { type: 'email', source: 'crm', external_id: 'edge-offset', lead, occurred_at: '2028-03-01T01:30:00+14:00' },
    });
    expect(activity.status, activity.text).toBe(201);
    expect(activity.json.occurred_at).toBe('2028-02-29T11:30:00.000Z');
    const due = '2999-12-31T12:00:00-11:59';
    const patched = await request(`/leads/${lead}`, { method: 'PATCH', body: { next_action: { text: 'Call', due_at: due } } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.next_action.due_at).toBe('2999-12-31T23:59:00.000Z');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookingBody, type Ctx, countBookings, newHome, origin, setup } from '../stay/support';
import { type TestClient, testClient } from '../support/client';
import { adminOf, createKey } from '../support/world';

/**
 * Dates and instants at the edges (docs/api-reference.md, "Dates and instants"): calendar dates and instants
 * from 1900 to 2999 are taken, others are refused with 400 `invalid_request` naming the field, and nothing is
 * written. Year 0000 used to reach the database and answer 500.
 */

let ctx: Ctx;
let home: string;
let key: string;
let task: string;
/** The typed client on the file's key, and a page's form client (the publishable key, the page's Origin). */
let client: TestClient;
let forms: TestClient;

/** A body or a query as sent (any JSON: the refusals too). */
type Sent = Record<string, unknown>;
const patchTask = (body: Sent) =>
  client.PATCH('/api/v1/tasks/{task_id}', { params: { path: { task_id: task } }, body: body as never });
const patchLead = (reference: string, body: Sent) =>
  client.PATCH('/api/v1/leads/{reference}', { params: { path: { reference } }, body: body as never });
/** The sync lists, each read with `updated_since`. */
const syncLists = {
  contacts: (since: string) => client.GET('/api/v1/contacts', { params: { query: { updated_since: since } } }),
  leads: (since: string) => client.GET('/api/v1/leads', { params: { query: { updated_since: since } } }),
  activities: (since: string) => client.GET('/api/v1/activities', { params: { query: { updated_since: since } } }),
  tasks: (since: string) => client.GET('/api/v1/tasks', { params: { query: { updated_since: since } } }),
  members: (since: string) => client.GET('/api/v1/members', { params: { query: { updated_since: since } } }),
  departments: (since: string) => client.GET('/api/v1/departments', { params: { query: { updated_since: since } } }),
};
let serial = 0;
const newLead = async (): Promise<string> =>
  (
    await client.POST('/api/v1/leads', {
      body: { consent: true, consent_version: 'v1', email: `edge.${serial++}@example.com` },
    })
  ).data?.reference as string;

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
  client = testClient(ctx.api, { host: ctx.company.host, serverKey: key });
  forms = testClient(ctx.api, { host: ctx.company.host, publishableKey: ctx.pk, headers: { Origin: origin } });
  task = (
    await client.POST('/api/v1/tasks', { body: { title: 'Edge', source: 'crm', external_id: 'edge-1', due_on: '2026-12-01' } })
  ).data?.task_id as string;
}, 60_000);
afterAll(() => ctx.api.close());

/** The paths of a 400 `invalid_request` answer's `errors`. */
function refusedPaths(res: { response: Response; error?: unknown }) {
  const problem = res.error as { code?: string; errors?: Array<{ path: string }> } | undefined;
  expect(res.response.status, JSON.stringify(res.error)).toBe(400);
  expect(problem?.code).toBe('invalid_request');
  return (problem?.errors ?? []).map((e) => e.path);
}

describe('holiday homes: availability, quotes and booking requests', () => {
  it.each(['0000-01-01', '1899-12-31', '3000-01-01'])('refuses availability from %s', async (from) => {
    const res = await client.GET('/api/v1/listings/{slug}/availability', { params: { path: { slug: home }, query: { from } } });
    expect(refusedPaths(res)).toContain('from');
  });

  it.each([
    ['0000-01-01', '0000-01-04'],
    ['0000-12-31', '0001-01-02'],
  ])('refuses a quote and a booking request from %s to %s, and books nothing', async (checkIn, checkOut) => {
    const quote = await client.GET('/api/v1/listings/{slug}/quote', {
      params: { path: { slug: home }, query: { check_in: checkIn, check_out: checkOut, guests: 1 } },
    });
    expect(refusedPaths(quote)).toContain('check_in');
    const before = await countBookings(ctx, home);
    const booking = await forms.POST('/api/v1/bookings', { body: bookingBody(home, checkIn, checkOut) as never });
    expect(refusedPaths(booking)).toEqual(expect.arrayContaining(['check_in', 'check_out']));
    expect(await countBookings(ctx, home)).toBe(before);
  });

  it('refuses booking terms and blocks with dates out of range', async () => {
    const listing = { params: { path: { company_id: ctx.company.id, slug: home } } };
    const admin = adminOf(ctx.api);
    const terms = await admin.PUT('/admin/v1/companies/{company_id}/listings/{slug}/booking-terms', {
      ...listing,
      body: { available_from: '0000-01-01' } as never,
    });
    expect(refusedPaths(terms)).toContain('available_from');
    const block = await admin.POST('/admin/v1/companies/{company_id}/listings/{slug}/blocks', {
      ...listing,
      body: { reason: 'owner', starts_on: '0000-01-01', ends_on: '0000-01-05' } as never,
    });
    expect(refusedPaths(block)).toEqual(expect.arrayContaining(['starts_on', 'ends_on']));
  });
});

describe('tasks: due_on', () => {
  it.each(['0000-01-01', '1899-12-31', '3000-01-01', '2027-02-29', '2026-02-30'])(
    'refuses due_on %s on POST and PATCH',
    async (due) => {
      const posted = await client.POST('/api/v1/tasks', {
        body: { title: 'Edge', source: 'crm', external_id: `edge-${due}`, due_on: due },
      });
      expect(refusedPaths(posted)).toEqual(['due_on']);
      const patched = await patchTask({ due_on: due });
      expect(refusedPaths(patched)).toEqual(['due_on']);
      const read = await client.GET('/api/v1/tasks/{task_id}', { params: { path: { task_id: task } } });
      expect(read.data?.due_on).toBe('2026-12-01');
    },
  );

  it('says whether a date is malformed or out of range', async () => {
    const codeOf = async (due: string) => (await patchTask({ due_on: due })).error?.errors?.[0]?.code;
    expect([await codeOf('2027-02-29'), await codeOf('0000-01-01'), await codeOf('3000-01-01')]).toEqual([
      'invalid_format',
      'out_of_range',
      'out_of_range',
    ]);
  });

  it.each(['1900-01-01', '2028-02-29', '2999-12-31'])('takes due_on %s', async (due) => {
    const res = await patchTask({ due_on: due });
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data?.due_on).toBe(due);
  });
});

describe('instants: updated_since, occurred_at, next_action.due_at', () => {
  const outOfRange = [
    '0000-01-01T00:00:00Z',
    '1899-12-31T23:59:59.999Z',
    '1900-01-01T00:30:00+01:00', // 1899-12-31T23:30Z
    '2999-12-31T23:30:00-01:00', // 3000-01-01T00:30Z
    '3000-01-01T00:00:00Z',
  ];
  const malformed = ['2026-01-01T00:00:00', '2026-02-30T00:00:00Z', '2026-01-01', '2026-01-01T00:00:00+24:00'];

  it.each([...outOfRange, ...malformed])('refuses updated_since=%s on every sync list', async (since) => {
    for (const [list, read] of Object.entries(syncLists)) {
      const res = await read(since);
      expect(refusedPaths(res), list).toEqual(['updated_since']);
    }
  });

  it.each(['1900-01-01T00:00:00Z', '1970-01-01T00:00:00Z', '2999-12-31T23:59:59.999Z', '2026-01-01T00:00:00+14:00'])(
    'takes updated_since=%s',
    async (since) => {
      for (const [list, read] of Object.entries(syncLists)) expect((await read(since)).response.status, list).toBe(200);
    },
  );

  it.each([...outOfRange, ...malformed])('refuses occurred_at and next_action.due_at %s, and writes nothing', async (at) => {
    const lead = await newLead();
    const activity = await client.POST('/api/v1/activities', {
      body: { type: 'call', source: 'crm', external_id: `edge-${at}`, lead, occurred_at: at },
    });
    expect(refusedPaths(activity)).toEqual(['occurred_at']);
    const patched = await patchLead(lead, { next_action: { text: 'Call', due_at: at } });
    expect(refusedPaths(patched)).toEqual(['next_action.due_at']);
    const after = (await client.GET('/api/v1/leads/{reference}', { params: { path: { reference: lead } } })).data;
    expect([after?.next_action, after?.first_answered_at]).toEqual([null, null]);
  });

  it('normalises an offset to UTC', async () => {
    const lead = await newLead();
    const activity = await client.POST('/api/v1/activities', {
      body: { type: 'email', source: 'crm', external_id: 'edge-offset', lead, occurred_at: '2028-03-01T01:30:00+14:00' },
    });
    expect(activity.response.status, JSON.stringify(activity.error)).toBe(201);
    expect(activity.data?.occurred_at).toBe('2028-02-29T11:30:00.000Z');
    const due = '2999-12-31T12:00:00-11:59';
    const patched = await patchLead(lead, { next_action: { text: 'Call', due_at: due } });
    expect(patched.response.status, JSON.stringify(patched.error)).toBe(200);
    expect(patched.data?.next_action?.due_at).toBe('2999-12-31T23:59:00.000Z');
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { answer } from '../stay/support';
import { testClient } from '../support/client';
import { leasesOf, useWorld } from '../support/world';

/**
 * ETag and If-Match (lib/preconditions.ts): every route the OpenAPI document declares with an `ETag` answer gives
 * the record's version, and every write declared with `If-Match` refuses a stale version with 412 and changes
 * nothing. The routes are read from the document, so a new versioned route is covered once it is declared.
 */

const w = useWorld({ pipelines: true });
let serial = 0;

/** How to make a record of each versioned collection (through the world's typed helpers), and a change to send it. */
const makers: Record<string, { create: () => Promise<string>; change: () => Record<string, unknown> }> = {
  contacts: {
    create: () => w.contact({ email: `pre.${serial++}@example.com` }),
    change: () => ({ name: `Name ${serial++}` }),
  },
  leads: {
    create: async () => (await w.lead({ consent_version: 'v1', email: `pre.${serial++}@example.com` })).reference,
    change: () => ({ next_action: { text: `Call back ${serial++}` } }),
  },
  leases: {
    create: async () => {
      const parties = { renter: await w.contact(), landlord: await w.contact() };
      const body = { home: 'jvc-2br-townhouse', rent: { amount: '90000', period: 'year' }, deposit: undefined, ...parties };
      return (await leasesOf(w).draft(body)).reference;
    },
    change: () => ({ notes: `Notes ${serial++}` }),
  },
  'rent-payments': {
    create: async () => {
      const lease = await makers.leases!.create();
      const { data } = await leasesOf(w).get(lease);
      return data!.schedule.rows[0]!.payment_id;
    },
    change: () => ({ notes: `Notes ${serial++}` }),
  },
  'rent-mandates': {
    create: async () => {
      const lease = await makers.leases!.create();
      const { data, error } = await leasesOf(w).addMandate(lease, leasesOf(w).mandateBody());
      if (!data) throw new Error(`mandate not added: ${JSON.stringify(error)}`);
      return data.mandate_id;
    },
    // A mandate's terms never change: its status moves once here, pending to active.
    change: () => ({ status: 'active' }),
  },
  deals: {
    create: async () => (await w.deal({ person: { email: `deal.${serial++}@example.com` } })).reference,
    change: () => ({ title: `Deal ${serial++}` }),
  },
  viewings: {
    create: async () => {
      const deal = await makers.deals!.create();
      return (await w.viewing({ deal, home: 'jvc-2br-townhouse', time: '2030-01-01T10:00:00Z' })).reference;
    },
    change: () => ({ time: `2030-01-${String((serial++ % 28) + 1).padStart(2, '0')}T11:00:00Z` }),
  },
  contractors: {
    create: () => w.contractor({ name: `Firm ${serial++}`, trades: ['plumbing'] }),
    change: () => ({ notes: `Notes ${serial++}` }),
  },
  'job-charges': {
    create: async () => {
      const job = await makers.jobs!.create();
      const { data, error } = await w.client.POST('/api/v1/job-charges', { body: { job, cost: '10', payer: 'renter' } });
      if (!data) throw new Error(`charge not added: ${JSON.stringify(error)}`);
      return data.charge_id;
    },
    // A charge changes once: a renter's is marked paid.
    change: () => ({ status: 'paid' }),
  },
  jobs: {
    create: async () => (await w.job({ home: 'jvc-2br-townhouse', category: 'plumbing', problem: 'A leak.' })).reference,
    change: () => ({ problem: `Leak ${serial++}` }),
  },
  tasks: {
    create: async () => (await w.task({ title: 'Pre', source: 'pre', external_id: `${serial++}` })).task_id,
    change: () => ({ title: `Title ${serial++}` }),
  },
};

/** An operation the document declares, called by its method and concrete path. */
function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  // raw: the versioned operations are read from the document and called generically, by method and path
  return w.api.request(path, { method, host: w.company.host, key: w.key.secret, body, headers });
}

type Operation = { method: string; path: string; collection: string };
const reads: Operation[] = [];
const writes: Operation[] = [];

beforeAll(async () => {
  // raw: the public API's document itself, which is not one of its operations
  const doc = (await w.api.request('/api/v1/openapi.json')).json;
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(ops)) {
      const collection = path.split('/')[3] as string;
      const operation = { method: method.toUpperCase(), path, collection };
      if (method === 'get' && op.responses?.['200']?.headers?.ETag) reads.push(operation);
      // The PATCH of each record: its actions (e.g. POST /leases/{reference}/activate) test If-Match in their group.
      if (method === 'patch' && (op.parameters ?? []).some((p: any) => p.in === 'header' && p.name === 'if-match')) {
        writes.push(operation);
      }
    }
  }
});

/** A contact's and a task's read and change through the typed client (a change of any body, with these headers). */
const contact = (reference: string) => ({
  get: () => answer(w.client.GET('/api/v1/contacts/{reference}', { params: { path: { reference } } })),
  patch: (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    answer(w.client.PATCH('/api/v1/contacts/{reference}', { params: { path: { reference } }, body: body as never, headers })),
});
const task = (task_id: string) => ({
  get: () => answer(w.client.GET('/api/v1/tasks/{task_id}', { params: { path: { task_id } } })),
  patch: (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    answer(w.client.PATCH('/api/v1/tasks/{task_id}', { params: { path: { task_id } }, body: body as never, headers })),
});

const concrete = (op: Operation, id: string) => op.path.replace(/\{[a-z_]+\}/, encodeURIComponent(id));

describe('versioned records', () => {
  it('are declared for every record a client changes, and every one has a maker here', () => {
    expect(reads.map((r) => r.collection).sort()).toEqual([
      'contacts',
      'contractors',
      'deals',
      'job-charges',
      'jobs',
      'leads',
      'leases',
      'rent-mandates',
      'rent-payments',
      'tasks',
      'viewings',
    ]);
    expect(writes.length).toBeGreaterThanOrEqual(3);
    for (const op of [...reads, ...writes]) expect(makers[op.collection], op.path).toBeDefined();
  });

  it('give their version as a strong ETag on reads, and a new one after each write', async () => {
    for (const op of reads) {
      const id = await makers[op.collection]!.create();
      const read = await call('GET', concrete(op, id));
      expect(read.status, op.path).toBe(200);
      const etag = read.headers.get('ETag');
      expect(etag, op.path).toMatch(/^"v\d+"$/);
      const write = writes.find((w) => w.collection === op.collection)!;
      const changed = await call(write.method, concrete(write, id), makers[op.collection]!.change(), { 'If-Match': etag! });
      expect(changed.status, write.path).toBe(200);
      const next = changed.headers.get('ETag');
      expect(next).not.toBe(etag);
      expect((await call('GET', concrete(op, id))).headers.get('ETag')).toBe(next);
    }
  });

  it('refuse a write with a stale If-Match (412, the current ETag given) and change nothing', async () => {
    for (const op of writes) {
      const maker = makers[op.collection]!;
      const id = await maker.create();
      const read = (path: string) => call('GET', path);
      const getPath = concrete({ ...op, path: op.path }, id);
      const before = await read(getPath);
      const stale = before.headers.get('ETag')!;
      expect((await call(op.method, concrete(op, id), maker.change())).status).toBe(200);
      const current = await read(getPath);
      const refused = await call(op.method, concrete(op, id), maker.change(), { 'If-Match': stale });
      expect(refused.status, op.path).toBe(412);
      expect(refused.headers.get('Content-Type')).toBe('application/problem+json');
      expect(refused.json.code).toBe('precondition_failed');
      expect(refused.headers.get('ETag')).toBe(current.headers.get('ETag'));
      const after = await read(getPath);
      expect(after.json).toEqual(current.json);
      expect(after.headers.get('ETag')).toBe(current.headers.get('ETag'));
    }
  });

  it('accept *, a list holding the current tag, and no If-Match at all; never a weak tag', async () => {
    expect(writes.find((op) => op.collection === 'contacts')).toBeDefined();
    const one = contact(await makers.contacts!.create());
    const etag = (await one.get()).headers.get('ETag')!;
    expect((await one.patch(makers.contacts!.change(), { 'If-Match': `"v999", ${etag}` })).status).toBe(200);
    expect((await one.patch(makers.contacts!.change(), { 'If-Match': '*' })).status).toBe(200);
    const now = (await one.get()).headers.get('ETag')!;
    expect((await one.patch(makers.contacts!.change(), { 'If-Match': `W/${now}` })).status).toBe(412);
    expect((await one.patch(makers.contacts!.change())).status).toBe(200);
  });

  it.each([['v1'], ['"v1" "v2"'], ['"unterminated'], [',']])('refuse the malformed If-Match %j with 400', async (bad) => {
    const one = task(await makers.tasks!.create());
    const res = await one.patch({ title: 'Never' }, { 'If-Match': bad });
    expect(res.status).toBe(400);
    expect(res.json.errors[0].path).toBe('If-Match');
    expect((await one.get()).json.title).toBe('Pre');
  });

  it('an unknown record is still a 404, with or without If-Match', async () => {
    const res = await task('task_nope').patch({ title: 'x' }, { 'If-Match': '"v1"' });
    expect(res.status).toBe(404);
  });

  it('let only one of two concurrent writes holding the same version through', async () => {
    const one = contact(await makers.contacts!.create());
    const etag = (await one.get()).headers.get('ETag')!;
    const answers = await Promise.all([
      one.patch({ name: 'First' }, { 'If-Match': etag }),
      one.patch({ name: 'Second' }, { 'If-Match': etag }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412]);
    const winner = answers.find((a) => a.status === 200)!;
    expect((await one.get()).json.name).toBe(winner.json.name);
  });

  it('replays a write sent again with its Idempotency-Key, although its If-Match is now stale', async () => {
    const one = task(await makers.tasks!.create());
    const etag = (await one.get()).headers.get('ETag')!;
    const headers = { 'If-Match': etag, 'Idempotency-Key': `pre-${serial++}` };
    const first = await one.patch({ title: 'Once' }, headers);
    const again = await one.patch({ title: 'Once' }, headers);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.headers.get('ETag')).toBe(first.headers.get('ETag'));
  });
});

describe('a server key in X-Api-Key', () => {
  it('is refused with a code that says where it goes, on server-key and public routes', async () => {
    const misplaced = testClient(w.api, { host: w.company.host, headers: { 'X-Api-Key': w.key.secret } });
    const reads: Array<[string, () => Promise<{ error?: unknown; response: Response }>]> = [
      ['/api/v1/contacts', () => misplaced.GET('/api/v1/contacts')],
      ['/api/v1/areas', () => misplaced.GET('/api/v1/areas')],
    ];
    for (const [path, read] of reads) {
      const res = await answer(read());
      expect(res.status, path).toBe(403);
      expect(res.json.code).toBe('key_wrong_header');
      expect(res.json.detail).toContain('Authorization: Bearer');
    }
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { demoPipelines } from '../../functions/pipelines/demo';
import { scopes } from '../../schema/common/scopes';
import { createCompany, createKey, importCatalogue, useApi } from '../support/world';

// raw: every versioned operation of the document is called with ETag and If-Match headers built from the document

/**
 * ETag and If-Match (lib/preconditions.ts): every route the OpenAPI document declares with an `ETag` answer gives
 * the record's version, and every write declared with `If-Match` refuses a stale version with 412 and changes
 * nothing. The routes are read from the document, so a new versioned route is covered once it is declared.
 */

let company: { id: string; host: string };
let key: string;
let serial = 0;

/** How to make a record of each versioned collection, and a change to send it. */
const makers: Record<string, { create: () => Promise<string>; change: () => Record<string, unknown> }> = {
  contacts: {
    create: async () => (await call('POST', '/api/v1/contacts', { email: `pre.${serial++}@example.com` })).json.reference,
    change: () => ({ name: `Name ${serial++}` }),
  },
  leads: {
    create: async () =>
      (await call('POST', '/api/v1/leads', { consent: true, consent_version: 'v1', email: `pre.${serial++}@example.com` })).json
        .reference,
    change: () => ({ next_action: { text: `Call back ${serial++}` } }),
  },
  leases: {
    create: async () => {
      const party = async () =>
        (await call('POST', '/api/v1/contacts', { email: `party.${serial++}@example.com` })).json.reference;
      const term = { start: '2027-01-01', end: '2027-12-31' };
      const body = { home: 'jvc-2br-townhouse', term, rent: { amount: '90000', period: 'year' }, schedule: { payments: 4 } };
      return (await call('POST', '/api/v1/leases', { ...body, renter: await party(), landlord: await party() })).json.reference;
    },
    change: () => ({ notes: `Notes ${serial++}` }),
  },
  'rent-payments': {
    create: async () => {
      const lease = await makers.leases?.create();
      return (await call('GET', `/api/v1/leases/${lease}`)).json.schedule.rows[0].payment_id;
    },
    change: () => ({ notes: `Notes ${serial++}` }),
  },
  deals: {
    create: async () =>
      (await call('POST', '/api/v1/deals', { person: { email: `deal.${serial++}@example.com` } })).json.reference,
    change: () => ({ title: `Deal ${serial++}` }),
  },
  viewings: {
    create: async () => {
      const deal = await makers.deals!.create();
      const body = { deal, home: 'jvc-2br-townhouse', time: '2030-01-01T10:00:00Z' };
      return (await call('POST', '/api/v1/viewings', body)).json.reference;
    },
    change: () => ({ time: `2030-01-${String((serial++ % 28) + 1).padStart(2, '0')}T11:00:00Z` }),
  },
  contractors: {
    create: async () =>
      (await call('POST', '/api/v1/contractors', { name: `Firm ${serial++}`, trades: ['plumbing'] })).json.contractor_id,
    change: () => ({ notes: `Notes ${serial++}` }),
  },
  'job-charges': {
    create: async () => {
      const job = await makers.jobs?.create();
      return (await call('POST', '/api/v1/job-charges', { job, cost: '10', payer: 'renter' })).json.charge_id;
    },
    // A charge changes once: a renter's is marked paid.
    change: () => ({ status: 'paid' }),
  },
  jobs: {
    create: async () =>
      (await call('POST', '/api/v1/jobs', { home: 'jvc-2br-townhouse', category: 'plumbing', problem: 'A leak.' })).json
        .reference,
    change: () => ({ problem: `Leak ${serial++}` }),
  },
  tasks: {
    create: async () =>
      (await call('POST', '/api/v1/tasks', { title: 'Pre', source: 'pre', external_id: `${serial++}` })).json.task_id,
    change: () => ({ title: `Title ${serial++}` }),
  },
};

function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return api.request(path, { method, host: company.host, key, body, headers });
}

type Operation = { method: string; path: string; collection: string };
const reads: Operation[] = [];
const writes: Operation[] = [];

const api = useApi({ env: { RATE_LIMIT_SERVER_KEY_PER_MINUTE: '100000' } });
beforeAll(async () => {
  company = await createCompany(api);
  await importCatalogue(api, company.id);
  for (const pipeline of demoPipelines) await api.admin(`/companies/${company.id}/pipelines`, { body: pipeline });
  key = (await createKey(api, company.id, { scopes: [...scopes] })).secret;
  const doc = (await api.request('/api/v1/openapi.json')).json;
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
    const op = writes.find((w) => w.collection === 'contacts')!;
    const id = await makers.contacts!.create();
    const path = concrete(op, id);
    const etag = (await call('GET', path)).headers.get('ETag')!;
    expect((await call('PATCH', path, makers.contacts!.change(), { 'If-Match': `"v999", ${etag}` })).status).toBe(200);
    expect((await call('PATCH', path, makers.contacts!.change(), { 'If-Match': '*' })).status).toBe(200);
    const now = (await call('GET', path)).headers.get('ETag')!;
    expect((await call('PATCH', path, makers.contacts!.change(), { 'If-Match': `W/${now}` })).status).toBe(412);
    expect((await call('PATCH', path, makers.contacts!.change())).status).toBe(200);
  });

  it.each([['v1'], ['"v1" "v2"'], ['"unterminated'], [',']])('refuse the malformed If-Match %j with 400', async (bad) => {
    const id = await makers.tasks!.create();
    const res = await call('PATCH', `/api/v1/tasks/${id}`, { title: 'Never' }, { 'If-Match': bad });
    expect(res.status).toBe(400);
    expect(res.json.errors[0].path).toBe('If-Match');
    expect((await call('GET', `/api/v1/tasks/${id}`)).json.title).toBe('Pre');
  });

  it('an unknown record is still a 404, with or without If-Match', async () => {
    const res = await call('PATCH', '/api/v1/tasks/task_nope', { title: 'x' }, { 'If-Match': '"v1"' });
    expect(res.status).toBe(404);
  });

  it('let only one of two concurrent writes holding the same version through', async () => {
    const id = await makers.contacts!.create();
    const path = `/api/v1/contacts/${id}`;
    const etag = (await call('GET', path)).headers.get('ETag')!;
    const answers = await Promise.all([
      call('PATCH', path, { name: 'First' }, { 'If-Match': etag }),
      call('PATCH', path, { name: 'Second' }, { 'If-Match': etag }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412]);
    const winner = answers.find((a) => a.status === 200)!;
    expect((await call('GET', path)).json.name).toBe(winner.json.name);
  });

  it('replays a write sent again with its Idempotency-Key, although its If-Match is now stale', async () => {
    const id = await makers.tasks!.create();
    const path = `/api/v1/tasks/${id}`;
    const etag = (await call('GET', path)).headers.get('ETag')!;
    const headers = { 'If-Match': etag, 'Idempotency-Key': `pre-${serial++}` };
    const first = await call('PATCH', path, { title: 'Once' }, headers);
    const again = await call('PATCH', path, { title: 'Once' }, headers);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.headers.get('ETag')).toBe(first.headers.get('ETag'));
  });
});

describe('a server key in X-Api-Key', () => {
  it('is refused with a code that says where it goes, on server-key and public routes', async () => {
    for (const path of ['/api/v1/contacts', '/api/v1/areas']) {
      const res = await api.request(path, { host: company.host, headers: { 'X-Api-Key': key } });
      expect(res.status, path).toBe(403);
      expect(res.json.code).toBe('key_wrong_header');
      expect(res.json.detail).toContain('Authorization: Bearer');
    }
  });
});

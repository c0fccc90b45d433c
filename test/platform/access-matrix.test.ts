import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoPipelines } from '../../functions/pipelines/demo';
import { scopes } from '../../schema/common/scopes';
import { testClient } from '../support/client';
import { adminOf, createCompany, createKey, useApi, useDemoCompany } from '../support/world';
import { feeDocument, issueDocument, testSeller } from '../support/invoices';
import { startStripeStandIn } from '../support/stripe-standin';

/**
 * The shared authorisation suite: every operation of both OpenAPI documents, driven by the access
 * declaration each route carries (`x-access`), against missing, unknown, revoked, foreign, under-scoped
 * and publishable keys. A new route is covered the moment it is declared.
 */

type Access = { kind: 'public' | 'server' | 'form' | 'admin' | 'inbound' | 'page' | 'qstash'; scopes?: string[] };
type Operation = { method: string; path: string; access: Access };

let other: { id: string; host: string };
let keys: Record<string, string>;
let operations: Operation[];

/** The operations that take a key (the admin API takes its token; an inbound receiver no key: see below). */
const keyed = () => operations.filter((o) => o.access.kind !== 'admin' && o.access.kind !== 'inbound');

function operationsOf(doc: any): Operation[] {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => {
      const example = op.requestBody?.content?.['application/json']?.example;
      if (example !== undefined) bodies[`${method.toUpperCase()} ${path}`] = example;
      return { method: method.toUpperCase(), path, access: op['x-access'] };
    }),
  );
}

/**
 * Each write's body is the example its own declaration gives (`jsonBody(schema, example)`, in the OpenAPI document);
 * a write without one is sent `{}`. So a new route is covered the moment it is declared.
 */
const bodies: Record<string, unknown> = {};
/** Real records of this company for `{reference}` path parameters, by collection; seeded in beforeAll. */
const references: Record<string, string> = {};

const holidayHome = 'palm-5br-villa-private-beach-holiday';
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
/** Query strings of the reads that need one, by path. */
const queries: Record<string, string> = {
  '/api/v1/listings/{slug}/quote': `?check_in=${day(60)}&check_out=${day(67)}&guests=2`,
  '/api/v1/audit-log/export': `?from=${day(-1)}&to=${day(0)}`,
  '/admin/v1/companies/{company_id}/audit-log/export': `?from=${day(-1)}&to=${day(0)}`,
};

function concrete(path: string, method = 'GET'): string {
  const slug = /\/(availability|quote|calendar\.ics|rates)$/.test(path) ? holidayHome : 'marina-gate-2br-sea-view';
  return (
    (path + (queries[path] ?? ''))
      // Each job action on a job of its own (a done job is not cancelled).
      .replace(
        /\/jobs\/\{reference\}\/([a-z]+)$/,
        (_, action: string) => `/jobs/${references[`jobs/${action}`] ?? 'x'}/${action}`,
      )
      // Each booking action on a booking of its own (issue 37: a cancelled one is not confirmed).
      .replace(
        /\/bookings\/\{reference\}\/(confirm|cancel)$/,
        (_, action: string) => `/bookings/${references[`bookings/${action}`] ?? 'x'}/${action}`,
      )
      .replace(/\/([a-z-]+)\/\{reference\}/, (_, collection: string) => `/${collection}/${references[collection] ?? 'x'}`)
      .replace('{contractor_id}', references.contractors ?? 'x')
      .replace('{charge_id}', references['job-charges'] ?? 'x')
      .replace('{company_id}', company.id)
      .replace('{slug}', slug)
      .replace('{prefix}', 'sk_AAAAAAAAAA')
      .replace('{task_id}', references.tasks ?? 'x')
      .replace('{saved_search_id}', references.savedSearch ?? 'x')
      .replace(
        /\/rent-payments\/\{payment_id\}\/payment-link$/,
        `/rent-payments/${references['rent-payments/link'] ?? 'x'}/payment-link`,
      )
      .replace('{payment_id}', references['rent-payments'] ?? 'x')
      .replace('{mandate_id}', references['rent-mandates'] ?? 'x')
      .replace('{profile_id}', '00000000-0000-4000-8000-000000000000')
      .replace('{token}', references.feedToken ?? 'x')
      .replace('{number}', references.invoices ?? 'x')
      // The DELETE of a webhook endpoint removes one of its own, so the other routes keep theirs.
      .replace('{endpoint_id}', references[method === 'DELETE' ? 'webhook-endpoints/delete' : 'webhook-endpoints'] ?? 'x')
      // The catalogue written by integrations (issue 38): the integration's own id of a listing.
      .replace('{external_id}', 'acme:access-matrix')
      .replace(/\{[a-z_]+\}/g, 'x')
  );
}

async function call(op: Operation, options: { key?: string; host?: string; headers?: Record<string, string> } = {}) {
  // raw: every operation of both documents is called as the document declares it, with keys sent right and wrong
  return api.request(concrete(op.path, op.method), {
    method: op.method,
    host: options.host ?? company.host,
    key: options.key,
    headers: options.headers,
    body: op.method === 'GET' || op.method === 'DELETE' ? undefined : (bodies[`${op.method} ${op.path}`] ?? {}),
  });
}

// Stripe on loopback, so a payment link is made as in production (issue 34).
const stripe = await startStripeStandIn();
afterAll(() => stripe.close());
const api = useApi({ env: { STRIPE_API_BASE: stripe.url } });
const company = useDemoCompany(api, { team_module: true, bookings_enabled: true });
/** The answer's body of a typed call that must succeed. */
async function made<T>(call: Promise<{ data?: T; error?: unknown }>): Promise<T> {
  const { data, error } = await call;
  if (!data) throw new Error(`not made: ${JSON.stringify(error)}`);
  return data;
}

beforeAll(async () => {
  other = await createCompany(api);
  const admin = adminOf(api);
  const ofCompany = { params: { path: { company_id: company.id } } };
  for (const pipeline of demoPipelines) {
    await made(admin.POST('/admin/v1/companies/{company_id}/pipelines', { ...ofCompany, body: pipeline as never }));
  }
  const all = [...scopes];
  keys = {
    all: (await createKey(api, company.id, { scopes: all })).secret,
    none: (await createKey(api, company.id, { scopes: ['read:pipelines'] })).secret,
    // For the routes that take read:pipelines: a valid key with another scope.
    noneElse: (await createKey(api, company.id, { scopes: ['read:team'] })).secret,
    foreign: (await createKey(api, other.id, { scopes: all })).secret,
    publishable: (await createKey(api, company.id, { kind: 'publishable', origins: ['https://www.example.com'] })).secret,
  };
  const revoked = await createKey(api, company.id, { scopes: all });
  await made(
    admin.POST('/admin/v1/companies/{company_id}/keys/{prefix}/revoke', {
      params: { path: { company_id: company.id, prefix: revoked.prefix } },
    }),
  );
  keys.revoked = revoked.secret;
  keys.unknown = `sk_${'A'.repeat(10)}${'b'.repeat(32)}`;
  // The company's portal feed token (issue 25): the feeds' path carries it.
  const feeds = await made(admin.GET('/admin/v1/companies/{company_id}/portal-feeds', ofCompany));
  references.feedToken = new URL(feeds.results[0]!.url).pathname.split('/')[4] as string;
  const [publicDoc, adminDoc] = await Promise.all(
    ['/api/v1/openapi.json', '/admin/v1/openapi.json'].map(
      async (path) =>
        // raw: the documents are not operations they declare
        (await api.request(path)).json,
    ),
  );
  operations = [...operationsOf(publicDoc), ...operationsOf(adminDoc)];
  const client = testClient(api, { host: company.host, serverKey: keys.all });
  const contact = await made(client.POST('/api/v1/contacts', { body: bodies['POST /api/v1/contacts'] as never }));
  references.contacts = contact.reference;
  // Owner statements name an owner (this company's person) and a month; the journal and the statements' export a month.
  queries['/api/v1/owner-statements'] = `?owner=${references.contacts}&month=2027-02`;
  queries['/api/v1/exports/journal'] = '?month=2027-02';
  queries['/api/v1/exports/owner-statements'] = '?month=2027-02';
  // The Tourism Dirham's report a month (issue 37).
  queries['/api/v1/tourism-dirham'] = '?month=2027-02';
  bodies['POST /api/v1/owner-statements/links'] = {
    ...(bodies['POST /api/v1/owner-statements/links'] as object),
    owner: references.contacts,
  };
  // A lease's example names contacts of another company: here its parties are this company's.
  const landlord = await made(client.POST('/api/v1/contacts', { body: { email: 'landlord@example.com' } }));
  const lease = {
    ...(bodies['POST /api/v1/leases'] as object),
    renter: contact.reference,
    landlord: landlord.reference,
  };
  bodies['POST /api/v1/leases'] = lease;
  for (const collection of ['leads', 'tasks', 'leases', 'deals', 'viewings', 'jobs', 'contractors', 'inspections']) {
    const path = `/api/v1/${collection}`;
    // A viewing's example names a deal of another company: here it is on this company's deal.
    if (collection === 'viewings') bodies[`POST ${path}`] = { ...(bodies[`POST ${path}`] as object), deal: references.deals };
    // raw: each collection's record made of the document's example body, by its path
    const created = await api.request(path, { host: company.host, key: keys.all, body: bodies[`POST ${path}`] });
    references[collection] = created.json.reference ?? created.json.task_id ?? created.json.contractor_id;
  }
  // A saved search (issue 36) for {saved_search_id}: saved by the company's server, as the document's example.
  const saved = await api.request('/api/v1/saved-searches', {
    host: company.host,
    key: keys.all,
    body: bodies['POST /api/v1/saved-searches'],
  });
  references.savedSearch = saved.json.saved_search_id;
  // A charge's example names a job of another company: here it is this company's.
  bodies['POST /api/v1/job-charges'] = { ...(bodies['POST /api/v1/job-charges'] as object), job: references.jobs };
  const charge = await made(client.POST('/api/v1/job-charges', { body: bodies['POST /api/v1/job-charges'] as never }));
  references['job-charges'] = charge.charge_id;
  // Webhook endpoints (issue 38): one for their routes, another for the DELETE.
  for (const name of ['webhook-endpoints', 'webhook-endpoints/delete']) {
    const body = bodies['POST /api/v1/webhook-endpoints'];
    // raw: made of the document's example body, as the collections above
    references[name] = (
      await api.request('/api/v1/webhook-endpoints', { host: company.host, key: keys.all, body })
    ).json.endpoint_id;
  }
  for (const action of ['schedule', 'complete', 'cancel', 'approval']) {
    const job = { home: 'jvc-2br-townhouse', category: 'general', problem: `For ${action}` };
    references[`jobs/${action}`] = (await made(client.POST('/api/v1/jobs', { body: job as never }))).reference;
  }
  // Rent payments: one of the lease's payments for {payment_id}, and a bounced one for the replacement's `replaces`.
  const leaseRead = await made(
    client.GET('/api/v1/leases/{reference}', { params: { path: { reference: references.leases as string } } }),
  );
  const [bounced, payment, linked] = leaseRead.schedule.rows.map((row) => row.payment_id) as [string, string, string];
  await made(
    client.PATCH('/api/v1/rent-payments/{payment_id}', {
      params: { path: { payment_id: bounced } },
      body: { status: 'bounced' },
    }),
  );
  references['rent-payments'] = payment;
  // A payment still due for its link, the company's Stripe account connected (the stand-in above).
  references['rent-payments/link'] = linked;
  await made(
    admin.POST('/admin/v1/companies/{company_id}/payment-accounts', {
      ...ofCompany,
      body: {
        provider: 'stripe',
        currency: 'AED',
        api_key: 'sk_test_matrix_key',
        webhook_secret: 'whsec_matrix_secret',
      } as never,
    }),
  );
  bodies['POST /api/v1/rent-payments'] = { ...(bodies['POST /api/v1/rent-payments'] as object), replaces: bounced };
  // A direct-debit mandate of the lease for {mandate_id} (issue 34): the example's, so its POST answers it again.
  const mandate = await made(
    client.POST('/api/v1/leases/{reference}/rent-mandates', {
      params: { path: { reference: references.leases as string } },
      body: bodies['POST /api/v1/leases/{reference}/rent-mandates'] as never,
    }),
  );
  references['rent-mandates'] = mandate.mandate_id;
  // Bookings for the integrations' routes (issue 37): bookings taken on a channel, one made held again for the confirm.
  const channelBooking = (offset: number) => ({
    channel: 'matrix',
    channel_reference: `matrix-${offset}`,
    listing: holidayHome,
    check_in: day(offset),
    check_out: day(offset + 4),
    guests: 2,
    name: 'Matrix Guest',
    email: `matrix.${offset}@example.com`,
  });
  for (const [name, offset] of [
    ['bookings', 100],
    ['bookings/cancel', 110],
    ['bookings/confirm', 120],
  ] as const) {
    // raw: made as the document's route takes it, as the collections above
    const res = await api.request('/api/v1/channel-bookings', {
      host: company.host,
      key: keys.all,
      body: channelBooking(offset),
    });
    references[name] = res.json.reference;
  }
  await api.db
    .updateTable('bookings')
    .set({ status: 'held', confirmed_at: null, paid_at: null, hold_expires_at: new Date(Date.now() + 86_400_000) })
    .where('reference', '=', references['bookings/confirm'] as string)
    .execute();
  bodies['POST /api/v1/channel-bookings'] = channelBooking(130);
  bodies['PATCH /api/v1/bookings/{reference}'] = { guests: 3 };
  // A tax invoice of the company for {number} (and {number}.xml, {number}/page).
  references.invoices = await issueDocument(api.db, company.id, feeDocument(testSeller('Matrix'), '105.00'), 'matrix');
});

describe('every route declares its access', () => {
  it('gives every write that needs a body a valid example in its declaration', () => {
    for (const path of ['/api/v1/contacts', '/api/v1/leads', '/api/v1/activities', '/api/v1/tasks']) {
      expect(bodies[`POST ${path}`], path).toBeDefined();
    }
  });

  it('has an x-access declaration on every operation of both documents', () => {
    expect(operations.length).toBeGreaterThan(15);
    for (const op of operations)
      expect(op.access?.kind, `${op.method} ${op.path}`).toMatch(/^(public|server|form|admin|inbound)$/);
  });

  it('registers no route under /api/v1 or /admin/v1 that is missing from the documents', () => {
    const documented = new Set(operations.map((op) => `${op.method} ${op.path.replace(/\{([a-z_]+)\}/g, ':$1')}`));
    const infrastructure = new Set([
      'GET /api/v1/openapi.json',
      'GET /api/v1/docs',
      'GET /api/v1/docs/api-reference.js',
      'GET /admin/v1/openapi.json',
    ]);
    const registered = api.app.routes
      .filter((r) => r.method !== 'ALL' && /^\/(api|admin)\/v1\//.test(r.path))
      .map((r) => `${r.method} ${r.path}`)
      .filter((r) => !infrastructure.has(r));
    for (const route of registered) expect(documented.has(route), route).toBe(true);
  });

  it('declares every other route but the platform’s own (health, problem pages): the pages, the callbacks', () => {
    const declared = new Set(declaredElsewhere().map((op) => `${op.method} ${op.path.replace(/\{([a-z_]+)\}/g, ':$1')}`));
    const platform = new Set(['GET /health', 'GET /health/ready', 'GET /problems', 'GET /problems/:code']);
    const registered = api.app.routes
      .filter((r) => r.method !== 'ALL' && !/^\/(api|admin)\/v1\//.test(r.path) && !platform.has(`${r.method} ${r.path}`))
      .map((r) => `${r.method} ${r.path}`);
    expect(registered.length).toBeGreaterThan(0);
    for (const route of registered) expect(declared.has(route), route).toBe(true);
    for (const op of declaredElsewhere()) expect(op.access?.kind, `${op.method} ${op.path}`).toMatch(/^(page|qstash)$/);
  });
});

/** The routes declared outside both documents (every route's declaration, from the app's registry). */
function declaredElsewhere(): Operation[] {
  const all = api.app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'all', version: '1' } }).paths ?? {};
  return Object.entries(all as Record<string, Record<string, any>>)
    .filter(([path]) => !/^\/(api|admin)\/v1\//.test(path))
    .flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, access: op['x-access'] })),
    );
}

describe('the pages at a secret token (declared, left out of the documents)', () => {
  const pages = () => declaredElsewhere().filter((op) => op.access.kind === 'page');
  /** A page answers its own 404: HTML, never stored or referred, never a problem document. */
  const isNotFoundPage = (res: Awaited<ReturnType<typeof api.request>>, what: string) => {
    expect(res.status, what).toBe(404);
    expect(res.headers.get('content-type'), what).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control'), what).toBe('no-store');
    expect(res.headers.get('referrer-policy'), what).toBe('no-referrer');
  };

  it('answer an unknown token with their 404 page, with any key or none, on the company’s host or an unknown one', async () => {
    expect(
      pages()
        .map((op) => op.path)
        .sort(),
    ).toEqual([
      '/saved-searches/{token}',
      '/saved-searches/{token}/confirmation',
      '/saved-searches/{token}/stop',
      '/statements/{token}',
      '/stay/{token}',
      '/stay/{token}/cancellation',
      '/stay/{token}/guests',
      '/stay/{token}/payment',
    ]);
    for (const op of pages()) {
      // A page's action (the stay page's pay form) is a POST with no body, as a form sends it.
      const method = op.method;
      for (const token of ['A'.repeat(32), 'short', '%00']) {
        for (const key of [undefined, keys.all, keys.foreign, keys.publishable, keys.revoked]) {
          const path = op.path.replace('{token}', token);
          // raw: the pages (HTML) are not operations of the documents
          isNotFoundPage(
            await api.request(path, { host: company.host, key, method }),
            `${path} with ${key ? 'a key' : 'no key'}`,
          );
        }
        // raw: the pages (HTML) are not operations of the documents
        isNotFoundPage(
          await api.request(op.path.replace('{token}', token), { host: 'unknown.test', method }),
          `${op.path} unknown host`,
        );
      }
    }
  });

  it('open with the token alone: a key sent with it is neither needed nor checked', async () => {
    const link = await testClient(api, { host: company.host, serverKey: keys.all }).POST('/api/v1/owner-statements/links', {
      body: { owner: references.contacts as string, month: '2027-02' },
    });
    expect(link.response.status, JSON.stringify(link.error)).toBe(201);
    const path = new URL(link.data!.url).pathname;
    for (const key of [undefined, keys.all, keys.foreign, keys.revoked]) {
      // raw: the statement page (HTML) is not an operation of the documents
      const res = await api.request(path, { host: company.host, key });
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    }
    // raw: the statement page (HTML) is not an operation of the documents
    isNotFoundPage(await api.request(path, { host: other.host }), 'on another company’s host');
  });
});

describe.each(['unknown', 'revoked', 'foreign', 'publishable'])('a %s key', (kind) => {
  it('is refused with 403 on every key-accepting route', async () => {
    for (const op of keyed()) {
      const res = await call(op, { key: keys[kind] });
      expect(res.status, `${op.method} ${op.path}`).toBe(403);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      // Refused before any limit is counted: no rate-limit headers on the refusal.
      expect(res.headers.get('ratelimit')).toBeNull();
    }
  });
  it('is refused when sent as X-Api-Key too', async () => {
    for (const op of keyed()) {
      const res = await call(op, { headers: { 'X-Api-Key': keys[kind] as string } });
      expect(res.status, `${op.method} ${op.path}`).toBe(403);
    }
  });
});

describe('scopes', () => {
  it('refuses a valid key of this company that lacks the declared scope', async () => {
    for (const op of keyed()) {
      const res = await call(op, { key: op.access.scopes?.includes('read:pipelines') ? keys.noneElse : keys.none });
      expect(res.status, `${op.method} ${op.path}`).toBe(403);
      // A browser-only form takes no server key at all.
      const browserOnly = op.access.kind === 'form' && !op.access.scopes?.length;
      expect(res.json.code, `${op.method} ${op.path}`).toBe(browserOnly ? 'key_wrong_kind' : 'scope_missing');
    }
  });

  it('accepts a key holding exactly one of the declared scopes', async () => {
    for (const op of keyed()) {
      for (const scope of op.access.scopes ?? []) {
        const { secret } = await createKey(api, company.id, { scopes: [scope as (typeof scopes)[number]] });
        const res = await call(op, { key: secret });
        const succeeded = op.method === 'DELETE' ? [204] : [200, 201];
        expect(succeeded, `${op.method} ${op.path} with ${scope}: ${res.text}`).toContain(res.status);
      }
    }
  });

  it('lets public routes answer without a key, and server routes refuse without one', async () => {
    for (const op of keyed()) {
      const res = await call(op);
      if (op.access.kind === 'public') expect(res.status, `${op.method} ${op.path}`).toBe(200);
      else expect(res.status, `${op.method} ${op.path}`).toBe(403);
    }
  });

  it('refuses a malformed Authorization header', async () => {
    const op = operations.find((o) => o.path === '/api/v1/listings') as Operation;
    const res = await call(op, { headers: { Authorization: `Basic ${btoa('a:b')}` } });
    expect(res.status).toBe(403);
  });
});

describe('safe retries and lost updates, declared by the platform', () => {
  const writes = () => keyed().filter((o) => ['POST', 'PATCH'].includes(o.method));

  it('documents Idempotency-Key on every POST and PATCH of the public API', async () => {
    // raw: the public document itself, which is not one of its operations
    const doc = (await api.request('/api/v1/openapi.json')).json;
    expect(writes().length).toBeGreaterThan(3);
    for (const op of writes()) {
      const parameters = doc.paths[op.path][op.method.toLowerCase()].parameters ?? [];
      expect(
        parameters.map((p: { name: string }) => p.name),
        `${op.method} ${op.path}`,
      ).toContain('idempotency-key');
    }
  });

  it('claims no Idempotency-Key for a refused key: the check comes first', async () => {
    const idempotencyKey = `matrix-${Date.now()}`;
    for (const op of writes()) {
      const res = await call(op, { key: keys.none, headers: { 'Idempotency-Key': idempotencyKey } });
      expect(res.status, `${op.method} ${op.path}`).toBe(403);
    }
    const claims = await api.db.selectFrom('idempotency_keys').select('route').where('key', '=', idempotencyKey).execute();
    expect(claims).toEqual([]);
  });

  it('replays every write sent again with its Idempotency-Key', async () => {
    for (const op of writes().filter((o) => o.access.scopes?.length)) {
      const headers = { 'Idempotency-Key': `matrix-replay-${op.method}-${op.path}` };
      const first = await call(op, { key: keys.all, headers });
      const again = await call(op, { key: keys.all, headers });
      expect(again.status, `${op.method} ${op.path}: ${first.text}`).toBe(first.status);
      if (first.status < 400 || first.json?.code !== 'invalid_request') {
        expect(again.headers.get('Idempotent-Replayed'), `${op.method} ${op.path}`).toBe('true');
        expect(again.text).toBe(first.text);
      }
    }
  });
});

describe('the inbound receivers', () => {
  it('take no key: an unknown token is 404 with any key or none, a known one without a signature 403', async () => {
    const all = operations.filter((o) => o.access.kind === 'inbound');
    // The Accredited Service Provider's and the pricing tool's receivers have no token: their signature is the
    // credential (401 without one).
    const signedOnly = ['/api/v1/inbound/einvoice', '/api/v1/inbound/pricing'];
    const answers = all.filter((o) => signedOnly.includes(o.path));
    expect(answers).toHaveLength(2);
    for (const op of answers) {
      for (const key of [undefined, keys.all, keys.foreign, keys.publishable]) {
        const res = await call(op, { key });
        expect(res.status, `POST ${op.path}`).toBe(401);
        expect(res.headers.get('content-type')).toBe('application/problem+json');
      }
    }
    const inbound = all.filter((o) => !signedOnly.includes(o.path));
    // Four inbound channels' receivers and the payment providers' (an unknown account: 404 alike).
    expect(inbound.length).toBe(5);
    for (const op of inbound) {
      for (const key of [undefined, keys.all, keys.foreign, keys.publishable]) {
        const res = await call(op, { key });
        expect(res.status, `${op.method} ${op.path}`).toBe(404);
        expect(res.headers.get('content-type')).toBe('application/problem+json');
      }
    }
    const channel = (await made(
      adminOf(api).POST('/admin/v1/companies/{company_id}/inbound-channels', {
        params: { path: { company_id: company.id } },
        body: { kind: 'signed', source: 'matrix' },
      }),
    )) as { url: string };
    const token = new URL(channel.url).pathname.split('/')[4] as string;
    const receive = (host: string, serverKey?: string) =>
      testClient(api, { host, serverKey }).POST('/api/v1/inbound/{token}/signed', {
        params: { path: { token } },
        body: { type: 'lead.created', data: {} } as never,
      });
    const res = await receive(company.host, keys.all);
    expect(res.response.status, JSON.stringify(res.error)).toBe(403);
    expect((res.error as { code?: string } | undefined)?.code).toBe('signature_invalid');
    // On another company's host the token is unknown.
    expect((await receive(other.host)).response.status).toBe(404);
  });
});

describe('the admin API', () => {
  it('refuses no token, a wrong token, and a server key, on every admin route', async () => {
    for (const op of operations.filter((o) => o.access.kind === 'admin')) {
      for (const key of [undefined, 'adm_wrong', keys.all]) {
        const res = await call(op, { key });
        expect(res.status, `${op.method} ${op.path}`).toBe(403);
        expect(res.json.code).toBe('admin_token_invalid');
      }
    }
  });
});

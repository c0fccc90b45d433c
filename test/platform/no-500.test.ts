import fc from 'fast-check';
import { sql } from 'kysely';
import { standardHeaders } from '../forms/inbound-support';
import { beforeAll, describe, expect, it } from 'vitest';
import { bookingBody, day, newHome, origin, plusDays, setup, todayInZone } from '../stay/support';
import { demoPipelines } from '../../functions/pipelines/demo';
import { scopes } from '../../schema/common/scopes';
import { demo } from '../support/harness';
import { type TestClient, testClient } from '../support/client';
import { adminOf, createKey, unique, useApi, useDemoCompany } from '../support/world';

/** Property: whatever a client sends, the answer is never a 500 (bad input is a 4xx problem). */

let operations: Array<{ method: string; path: string }>;

const api = useApi();
const company = useDemoCompany(api, { team_module: true });
/** Both documents, public and admin, as served. */
const documents = () =>
  Promise.all(
    ['/api/v1/openapi.json', '/admin/v1/openapi.json'].map(
      async (path) =>
        // raw: the documents are not operations they declare
        (await api.request(path)).json,
    ),
  );
beforeAll(async () => {
  const docs = await documents();
  operations = docs.flatMap((doc) =>
    Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path })),
    ),
  );
});

const names = [
  'type',
  'area',
  'project',
  'property_type',
  'bedrooms_min',
  'bedrooms_max',
  'guests_min',
  'completion',
  'featured',
  'sort',
  'page_size',
  'cursor',
  'cover',
  'action',
  'from',
  'to',
  'check_in',
  'check_out',
  'guests',
  'updated_since',
  'x',
];

/** Calendar dates and instants at the edges: years JavaScript, PostgreSQL or four digits cannot all hold, leap days. */
const year = fc.constantFrom('0000', '0001', '0099', '1899', '1900', '1969', '1970', '2028', '2999', '3000', '9999');
const farYear = fc.constantFrom('10000', '+275760', '-000001', '+010000', '-271821');
const monthDay = fc.constantFrom('01-01', '02-28', '02-29', '02-30', '04-31', '12-31', '13-01', '00-10');
const edgeDate = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(year, monthDay).map(([y, md]) => `${y}-${md}`) },
  fc.tuple(farYear, monthDay).map(([y, md]) => `${y}-${md}`),
);
const clock = fc.constantFrom('00:00:00', '23:59:59.999', '12:00:00.123456', '24:00:00', '23:59:60', '12:00');
const zone = fc.constantFrom('Z', 'z', '', '+00:00', '+14:00', '-12:00', '+05:30', '+23:59', '-23:59', '+24:00', '+1400');
const edgeInstant = fc.tuple(edgeDate, clock, zone).map(([d, t, z]) => `${d}T${t}${z}`);
const edgeValue = fc.oneof(edgeDate, edgeInstant);
const value = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom('', 'true', '1', '-1', '1e308', 'NaN', '%', '%00', '../', "' or 1=1 --", '[]', '{}', 'null'),
  fc.base64String({ maxLength: 60 }),
  edgeValue,
);
const query = fc.array(fc.tuple(fc.constantFrom(...names), value), { maxLength: 5 });
const segment = fc.oneof(value, fc.uuid(), fc.constantFrom('marina-gate-2br-sea-view', 'sk_AAAAAAAAAA'));

/** Header values fetch can send: visible ASCII, space and Latin-1. */
const headerText = fc
  .array(fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff })), { maxLength: 300 })
  .map((codes) => String.fromCharCode(...codes).trim());
const idempotencyKey = fc.oneof(headerText, fc.uuid(), fc.constant('k'.repeat(256)));
const ifMatch = fc.oneof(
  headerText,
  fc.constantFrom('*', '"v1"', 'W/"v1"', '"v1", "v2"', '"v999999999999999999999"', '""', '"', ',', 'v1'),
  fc.nat().map((n) => `"v${n}"`),
);

describe('no input gives a 500', () => {
  it('on every documented operation, with random path segments, query strings and bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 10_000 }),
        query,
        fc.array(segment, { minLength: 4, maxLength: 4 }),
        fc.oneof(fc.jsonValue(), fc.string({ maxLength: 50 })),
        fc.boolean(),
        async (pick, params, segments, body, asAdmin) => {
          const op = operations[pick % operations.length]!;
          let i = 0;
          const path = op.path.replace(/\{[a-z_]+\}/g, (name) =>
            name === '{company_id}' && asAdmin ? company.id : encodeURIComponent(segments[i++ % 4] ?? ''),
          );
          const search = new URLSearchParams(params).toString();
          // raw: every operation of both documents is sent what a client may send (fuzzing), built from the documents
          const res = await api.request(`${path}${search ? `?${search}` : ''}`, {
            method: op.method,
            host: company.host,
            key: asAdmin && op.path.startsWith('/admin') ? api.adminToken : undefined,
            body: op.method === 'GET' || op.method === 'DELETE' ? undefined : JSON.stringify(body),
            headers: { 'Content-Type': 'application/json' },
          });
          expect(res.status, `${op.method} ${path}?${search} → ${res.text}`).toBeLessThan(500);
          if (res.status >= 400) expect(res.headers.get('content-type')).toBe('application/problem+json');
        },
      ),
      { numRuns: 400 },
    );
  }, 120_000);

  it('with a server key holding every scope, random Idempotency-Key and If-Match headers on real records', async () => {
    const key = (await createKey(api, company.id, { scopes: [...scopes] })).secret;
    const client = testClient(api, { host: company.host, serverKey: key });
    const contact = (await client.POST('/api/v1/contacts', { body: { email: 'no500@example.com' } })).data!.reference;
    const lead = (
      await client.POST('/api/v1/leads', { body: { consent: true, consent_version: 'v1', email: 'no500@example.com' } })
    ).data!.reference;
    const task = (await client.POST('/api/v1/tasks', { body: { title: 'No 500', source: 'fuzz', external_id: '1' } })).data!
      .task_id;
    const real: Record<string, string> = { contacts: contact, leads: lead, tasks: task };
    const publicOps = operations.filter((o) => !o.path.startsWith('/admin') && o.method !== 'DELETE');
    // Half the runs write to a record that exists, where both headers are read.
    const versioned = publicOps.filter((o) => o.method !== 'GET' && /^\/api\/v1\/(contacts|leads|tasks)\/\{/.test(o.path));
    expect(versioned.length).toBeGreaterThanOrEqual(3);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constantFrom(...versioned), fc.constantFrom(...publicOps)),
        fc.boolean(),
        fc.option(idempotencyKey),
        fc.option(ifMatch),
        fc.oneof(fc.jsonValue(), fc.constant({ title: 'Fuzzed' }), fc.constant({ name: 'Fuzzed' })),
        async (op, existing, idem, match, body) => {
          const id = existing ? (real[op.path.split('/')[3] as string] ?? 'x') : 'x';
          const path = op.path.replace(/\{[a-z_]+\}/g, encodeURIComponent(id));
          const headers: Record<string, string> = { 'Content-Type': 'application/json' };
          if (idem !== null) headers['Idempotency-Key'] = idem;
          if (match !== null) headers['If-Match'] = match;
          // raw: every public operation of the document is sent any JSON with random headers (fuzzing)
          const res = await api.request(path, {
            method: op.method,
            host: company.host,
            key,
            body: op.method === 'GET' ? undefined : JSON.stringify(body),
            headers,
          });
          expect(res.status, `${op.method} ${path} ${JSON.stringify(headers)} → ${res.text}`).toBeLessThan(500);
          if (res.status >= 400) expect(res.headers.get('content-type')).toBe('application/problem+json');
        },
      ),
      { numRuns: 300 },
    );
  }, 120_000);
});

/** A valid request of an operation that takes dates or instants; its date fields are the ones the property changes. */
type Sample = {
  op: string;
  path: string;
  host?: string;
  key?: string;
  headers?: Record<string, string>;
  query?: object;
  body?: object;
  /** Headers computed from the body as sent (an inbound receiver's signature, made after the edges are put in). */
  sign?: (body: string) => Record<string, string>;
};
const dateFields = new Set(['from', 'to', 'check_in', 'check_out', 'updated_since', 'due_on', 'occurred_at', 'due_at']);
for (const field of ['day', 'done_on', 'booked_from', 'booked_to', 'cancelled_from', 'cancelled_to', 'planned_on', 'paid_on'])
  dateFields.add(field);
for (const field of ['available_from', 'available_to', 'starts_on', 'ends_on', 'published_at']) dateFields.add(field);
for (const field of ['vat_registered_on', 'valid_from', 'valid_to', 'date']) dateFields.add(field);
for (const field of ['created_since', 'created_before', 'since']) dateFields.add(field);
// The catalogue written by integrations (issue 38): a listing's permit's last day.
dateFields.add('expires_on');

/** `value` with each date field (at any depth) replaced by the next edge value, or kept when that is undefined. */
function withEdges(value: unknown, edges: Array<string | undefined>): unknown {
  if (Array.isArray(value)) return value.map((v) => withEdges(v, edges));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, dateFields.has(k) ? (edges.shift() ?? v) : withEdges(v, edges)]),
  );
}

/** `METHOD /path` of every documented operation with a parameter or body field of format date or date-time. */
function operationsTakingDates(doc: any): string[] {
  const takesDates = (schema: any, seen = new Set<unknown>()): boolean => {
    if (!schema || typeof schema !== 'object' || seen.has(schema)) return false;
    seen.add(schema);
    if (schema.$ref) return takesDates(doc.components.schemas[schema.$ref.split('/').pop()], seen);
    if (schema.format === 'date' || schema.format === 'date-time') return true;
    return Object.values(schema).some((v) => takesDates(v, seen));
  };
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([, op]) => takesDates(op.parameters) || takesDates(op.requestBody))
      .map(([method]) => `${method.toUpperCase()} ${path}`),
  );
}

describe('no date or instant gives a 500', () => {
  const samples: Sample[] = [];
  let dated: string[];

  beforeAll(async () => {
    const ctx = await setup({ api, settings: { team_module: true } });
    const { host } = ctx.company;
    const home = await newHome(ctx);
    const scopes = ['write:leads', 'read:leads', 'read:contacts', 'read:followups', 'write:followups', 'read:members'] as const;
    const leaseScopes = ['write:contacts', 'read:leases', 'write:leases', 'read:invoices'] as const;
    const pipelineScopes = ['read:pipelines', 'write:pipelines'] as const;
    const key = (await createKey(api, ctx.company.id, { scopes: [...scopes, ...leaseScopes, ...pipelineScopes] })).secret;
    const admin = adminOf(api);
    const company_id = ctx.company.id;
    for (const pipeline of demoPipelines) {
      await admin.POST('/admin/v1/companies/{company_id}/pipelines', {
        params: { path: { company_id } },
        body: pipeline as never,
      });
    }
    const client: TestClient = testClient(api, { host, serverKey: key });
    /** The answer's body of a typed call that must succeed. */
    const made = async <T>(call: Promise<{ data?: T; error?: unknown }>): Promise<T> => {
      const { data, error } = await call;
      if (!data) throw new Error(`not made: ${JSON.stringify(error)}`);
      return data;
    };
    const consent = { consent: true as const, consent_version: 'v1', email: 'no-500@example.com' };
    const lead = (await made(client.POST('/api/v1/leads', { body: consent }))).reference;
    const followup = { source: 'crm', external_id: 'no-500' };
    const task = (await made(client.POST('/api/v1/tasks', { body: { title: 'T', ...followup } }))).task_id;
    const [day1, day2] = [day(30), day(33)];
    const at = '2026-01-01T00:00:00Z';
    const api1 = (op: string, path: string, o: Omit<Sample, 'op' | 'path'>) =>
      samples.push({ op: `${op.split(' ')[0]} /api/v1${op.split(' ')[1]}`, path: `/api/v1${path}`, host, ...o });
    api1('GET /listings/{slug}/availability', `/listings/${home}/availability`, { query: { from: day1, to: day2 } });
    api1('GET /listings/{slug}/calendar.ics', `/listings/${home}/calendar.ics`, {});
    api1('GET /listings/{slug}/quote', `/listings/${home}/quote`, { query: { check_in: day1, check_out: day2, guests: '2' } });
    api1('GET /listings', '/listings', { query: { check_in: day1, check_out: day2, guests: '2' } });
    api1('POST /bookings', '/bookings', {
      body: bookingBody(home, day1, day2),
      headers: { 'X-Api-Key': ctx.pk, Origin: origin },
    });
    const party = async (email: string) => (await made(client.POST('/api/v1/contacts', { body: { email } }))).reference;
    const [renter, landlord] = [await party('renter.no-500@example.com'), await party('landlord.no-500@example.com')];
    const term = { start: day1, end: day(30 + 364) };
    const rent = { amount: '1000', period: 'month' };
    const lease = { home: 'marina-gate-1br-furnished', renter, landlord, term, rent, schedule: { payments: 12 } };
    const newLease = (body: typeof lease) => made(client.POST('/api/v1/leases', { body: body as never }));
    const activate = (reference: string) =>
      made(client.POST('/api/v1/leases/{reference}/activate', { params: { path: { reference } } }));
    api1('POST /leases', '/leases', { key, body: lease });
    const draft = (await newLease(lease)).reference;
    api1('PATCH /leases/{reference}', `/leases/${draft}`, { key, body: { term } });
    const home2 = { ...lease, home: 'jvc-studio-unfurnished' };
    const active = (await newLease(home2)).reference;
    await activate(active);
    api1('POST /leases/{reference}/notice', `/leases/${active}/notice`, {
      key,
      body: { given_on: day1, by: 'renter', intent: 'vacate', vacate_on: day2 },
    });
    const home3 = { ...lease, home: 'executive-towers-1br' };
    const ending = (await newLease(home3)).reference;
    await activate(ending);
    api1('POST /leases/{reference}/renew', `/leases/${active}/renew`, { key, body: { term: { start: day1, end: day2 } } });
    api1('POST /leases/{reference}/end', `/leases/${ending}/end`, {
      key,
      body: { ended_on: day2, deposit: { outcome: 'kept' } },
    });
    const paying = await newLease(lease);
    const [bounced, due] = paying.schedule.rows.map((row) => row.payment_id) as [string, string];
    await made(
      client.PATCH('/api/v1/rent-payments/{payment_id}', {
        params: { path: { payment_id: bounced } },
        body: { status: 'bounced' },
      }),
    );
    api1('POST /rent-payments', '/rent-payments', { key, body: { replaces: bounced, due_on: day1, amount: '10' } });
    api1('PATCH /rent-payments/{payment_id}', `/rent-payments/${due}`, { key, body: { due_on: day1 } });
    api1('GET /rent-payments', '/rent-payments', {
      key,
      query: { updated_since: at, booked_from: day1, booked_to: day2, bounced_from: day1, bounced_to: day2 },
    });
    const mandate = { bank: { name: 'ENBD' }, account_holder: 'A', iban: 'AE070331234567890123456', max_amount: '100' };
    api1('POST /leases/{reference}/rent-mandates', `/leases/${draft}/rent-mandates`, {
      key,
      body: { ...mandate, mandate_reference: 'DDA-no-500', starts_on: day1, ends_on: day2 },
    });
    api1('GET /rent-mandates', '/rent-mandates', { key, query: { updated_since: at } });
    const dealBody = { person: { email: 'deal.no-500@example.com' }, expected_close: day1 };
    api1('POST /deals', '/deals', { key, body: dealBody });
    const deal = (await made(client.POST('/api/v1/deals', { body: dealBody }))).reference;
    api1('PATCH /deals/{reference}', `/deals/${deal}`, { key, body: { expected_close: day2 } });
    const viewingBody = { deal, home: 'jvc-2br-townhouse', time: at };
    api1('POST /viewings', '/viewings', { key, body: viewingBody });
    const viewing = (await made(client.POST('/api/v1/viewings', { body: viewingBody }))).reference;
    api1('PATCH /viewings/{reference}', `/viewings/${viewing}`, { key, body: { time: at } });
    for (const list of [
      'contacts',
      'leads',
      'activities',
      'tasks',
      'members',
      'departments',
      'leases',
      'deals',
      'viewings',
      'saved-searches',
    ])
      api1(`GET /${list}`, `/${list}`, { key, query: { updated_since: at } });
    const upkeep = (await createKey(api, ctx.company.id, { scopes: ['read:maintenance', 'write:maintenance'] })).secret;
    const maintenance = testClient(api, { host, serverKey: upkeep });
    const job = async () =>
      (await made(maintenance.POST('/api/v1/jobs', { body: { home, category: 'general', problem: 'No 500' } as never })))
        .reference;
    api1('POST /jobs/{reference}/schedule', `/jobs/${await job()}/schedule`, {
      key: upkeep,
      body: { day: day(50), block_calendar: true },
    });
    // Work done and a charge paid are days that have come (the company's today at the latest).
    const past = plusDays(todayInZone(), -30);
    api1('POST /jobs/{reference}/complete', `/jobs/${await job()}/complete`, { key: upkeep, body: { done_on: past } });
    for (const list of ['jobs', 'contractors', 'inspections'])
      api1(`GET /${list}`, `/${list}`, { key: upkeep, query: { updated_since: at } });
    const charged = await made(
      maintenance.POST('/api/v1/job-charges', { body: { job: await job(), cost: '10', payer: 'renter' } }),
    );
    api1('PATCH /job-charges/{charge_id}', `/job-charges/${charged.charge_id}`, {
      key: upkeep,
      body: { status: 'paid', paid_on: todayInZone() },
    });
    api1('POST /inspections', '/inspections', { key: upkeep, body: { kind: 'routine', home, planned_on: day1 } });
    api1('GET /invoices', '/invoices', { key, query: { issued_from: day1, issued_to: day2 } });
    // Events and the audit export (issue 38).
    const reader = (await createKey(api, ctx.company.id, { scopes: ['read:events', 'read:audit'] })).secret;
    api1('GET /events', '/events', { key: reader, query: { since: at, until: at } });
    api1('GET /audit-log/export', '/audit-log/export', { key: reader, query: { from: day1, to: day2 } });
    samples.push({
      op: 'GET /admin/v1/companies/{company_id}/audit-log/export',
      path: `/admin/v1/companies/${company_id}/audit-log/export`,
      key: api.adminToken,
      query: { from: day1, to: day2 },
    });
    api1('GET /job-charges', '/job-charges', {
      key: upkeep,
      query: { updated_since: at, booked_from: day1, booked_to: day2, cancelled_from: day1, cancelled_to: day2 },
    });
    api1('POST /tasks', '/tasks', { key, body: { title: 'T', ...followup, due_on: day1 } });
    api1('PATCH /tasks/{task_id}', `/tasks/${task}`, { key, body: { due_on: day1 } });
    api1('POST /activities', '/activities', { key, body: { type: 'call', ...followup, lead, occurred_at: at } });
    api1('PATCH /leads/{reference}', `/leads/${lead}`, { key, body: { next_action: { text: 'Call', due_at: at } } });
    // The signed receiver reads `occurred_at` once the body's signature is verified: each sample is signed as sent.
    const signed = (await made(
      admin.POST('/admin/v1/companies/{company_id}/inbound-channels', {
        params: { path: { company_id } },
        body: { kind: 'signed', source: 'no500' },
      }),
    )) as { url: string; secret: string };
    let message = 0;
    api1('POST /inbound/{token}/signed', new URL(signed.url).pathname.slice('/api/v1'.length), {
      body: { type: 'lead.created', data: { email: 'signed.no-500@example.com', occurred_at: at } },
      sign: (text) => standardHeaders(signed.secret, `no-500-${message++}`, new Date(), text),
    });
    // Daily rates (issue 37): a server key's read and write, and a pricing tool's push, signed as sent.
    const rates = (await createKey(api, ctx.company.id, { scopes: ['read:listings', 'write:listings'] })).secret;
    const range = { starts_on: day1, ends_on: day2, price: '150.00' };
    api1('GET /listings/{slug}/rates', `/listings/${home}/rates`, { key: rates, query: { from: day1, to: day2 } });
    api1('PUT /listings/{slug}/rates', `/listings/${home}/rates`, { key: rates, body: { rates: [range] } });
    const toolSecret = `whsec_${Buffer.from(new Uint8Array(32).fill(5)).toString('base64')}`;
    await api.admin(`/companies/${company_id}/pricing-tool`, { method: 'PUT', body: { tool: 'no500', secret: toolSecret } });
    api1('POST /inbound/pricing', '/inbound/pricing', {
      body: { listing_id: home, data: [{ date: day1, price: 120 }] },
      sign: (text) => standardHeaders(toolSecret, `no-500-push-${message++}`, new Date(), text),
    });
    // Reservations for integrations (issue 37): a channel manager's list, change and booking taken elsewhere.
    const channel = (await createKey(api, ctx.company.id, { scopes: ['read:bookings', 'write:bookings'] })).secret;
    const taken = (offset: number) => ({
      channel: 'no500',
      channel_reference: `no-500-${offset}`,
      listing: home,
      check_in: day(offset),
      check_out: day(offset + 3),
      guests: 2,
      name: 'Channel Guest',
      email: 'channel.no-500@example.com',
    });
    // raw: the reservation routes are new in this branch; the generated clients get them at merge
    const changing = await api.request('/api/v1/channel-bookings', { host, key: channel, body: taken(70) });
    api1('GET /bookings', '/bookings', { key: channel, query: { updated_since: at, check_in_from: day1, check_in_to: day2 } });
    api1('PATCH /bookings/{reference}', `/bookings/${changing.json.reference}`, {
      key: channel,
      body: { check_in: day(70), check_out: day(73) },
    });
    api1('POST /channel-bookings', '/channel-bookings', { key: channel, body: taken(60) });
    const adminSample = (op: string, path: string, body: object) =>
      samples.push({
        op: `${op.split(' ')[0]} /admin/v1${op.split(' ')[1]}`,
        path: `/admin/v1${path}`,
        key: api.adminToken,
        body,
      });
    const listing = `/companies/${ctx.company.id}/listings/${home}`;
    const season = { starts_on: day1, ends_on: day2, nightly_price: '100.00' };
    const terms = { available_from: day1, available_to: day2, seasons: [season] };
    adminSample('PUT /companies/{company_id}/listings/{slug}/booking-terms', `${listing}/booking-terms`, terms);
    adminSample('PUT /companies/{company_id}/listings/{slug}/rates', `${listing}/rates`, { rates: [range] });
    // The Tourism Dirham paid over (issue 37): a month long closed, paid on a day after it.
    adminSample(
      'POST /companies/{company_id}/tourism-dirham/{month}/payment',
      `/companies/${ctx.company.id}/tourism-dirham/2020-01/payment`,
      {
        paid_on: '2020-02-10',
        reference: 'DET-no-500',
      },
    );
    samples.push({
      op: 'GET /admin/v1/companies/{company_id}/listings/{slug}/rates',
      path: `/admin/v1${listing}/rates`,
      key: api.adminToken,
      query: { from: day1, to: day2 },
    });
    // Guest registration (issue 37): the day's arrivals and the DET export.
    for (const path of ['arrivals', 'arrivals/det.csv']) {
      samples.push({
        op: `GET /admin/v1/companies/{company_id}/${path}`,
        path: `/admin/v1/companies/${ctx.company.id}/${path}`,
        key: api.adminToken,
        query: { arrival: day1 },
      });
    }
    adminSample('PATCH /companies/{company_id}/listings/{slug}/advertising', `${listing}/advertising`, {
      permit: { number: '7117361830', authority: 'dtcm', expires_on: day2 },
    });
    adminSample('POST /companies/{company_id}/listings/{slug}/blocks', `${listing}/blocks`, {
      reason: 'owner',
      starts_on: day(40),
      ends_on: day(43),
    });
    const imported = { ...demo.listings[0], slug: { en: 'no-500-import' }, published_at: at };
    adminSample('POST /companies/{company_id}/catalogue/import', `/companies/${ctx.company.id}/catalogue/import`, {
      listings: [imported],
    });
    // The company's tax settings (a registration day), on a new company and on this one.
    adminSample('POST /companies', '/companies', {
      name: 'Dated',
      hosts: [`dated-${unique()}.test`],
      environment: 'production',
      currency: 'AED',
      time_zone: 'Asia/Dubai',
      settings: { vat_registered_on: day1 },
    });
    adminSample('PATCH /companies/{company_id}', `/companies/${company_id}`, { settings: { vat_registered_on: day1 } });
    // The tax rates are the platform's (one table, which the files share on the PostgreSQL pass): zero_rated's days from
    // 2999 are this file's, written afresh each run (the seeded rate closed before them): an open rate to close, and
    // free days for a new one.
    await sql`delete from tax_rates where category = 'zero_rated' and valid_from >= '2999-01-01'`.execute(api.db);
    await sql`update tax_rates set valid_to = '2998-12-31' where category = 'zero_rated' and valid_from = '2018-01-01'`.execute(
      api.db,
    );
    const open = await sql<{ id: string }>`insert into tax_rates (category, rate, valid_from)
      values ('zero_rated', 0, '2999-06-01') returning id`.execute(api.db);
    adminSample('POST /tax-rates', '/tax-rates', {
      category: 'zero_rated',
      rate: '0',
      valid_from: '2999-01-01',
      valid_to: '2999-01-31',
    });
    adminSample('PATCH /tax-rates/{rate_id}', `/tax-rates/${open.rows[0]!.id}`, { valid_to: '2999-12-31' });
    // Webhook endpoints (issue 38): a key's endpoint, its deliveries by time and its recovery; the admin's alike.
    const hooks = (await createKey(api, company_id, { scopes: ['read:webhooks', 'write:webhooks'] })).secret;
    // raw: the webhook-endpoint routes are new in this branch; the generated clients get them at merge
    const endpoint = await api.request('/api/v1/webhook-endpoints', {
      host,
      key: hooks,
      body: { url: 'https://hooks.example.com/no-500' },
    });
    const endpointPath = `/webhook-endpoints/${endpoint.json.endpoint_id}`;
    api1('GET /webhook-endpoints/{endpoint_id}/deliveries', `${endpointPath}/deliveries`, {
      key: hooks,
      query: { created_since: at, created_before: day2.concat('T00:00:00Z') },
    });
    api1('POST /webhook-endpoints/{endpoint_id}/recover', `${endpointPath}/recover`, { key: hooks, body: { since: at } });
    const subscription = `/companies/${company_id}/webhook-subscriptions/${endpoint.json.endpoint_id}`;
    adminSample('POST /companies/{company_id}/webhook-subscriptions/{subscription_id}/recover', `${subscription}/recover`, {
      since: at,
    });
    samples.push({
      op: 'GET /admin/v1/companies/{company_id}/webhook-subscriptions/{subscription_id}/deliveries',
      path: `/admin/v1${subscription}/deliveries`,
      key: api.adminToken,
      query: { created_since: at, created_before: at },
    });
    // The catalogue written by integrations (issue 38): a listing under the integration's own id.
    const listingsKey = (await createKey(api, company_id, { scopes: ['write:listings'] })).secret;
    api1('PUT /external-listings/{external_id}', '/external-listings/acme:no-500', {
      key: listingsKey,
      body: {
        slug: { en: 'no-500-listing' },
        listing_type: 'sale',
        title: { en: 'No 500' },
        price: '1000000',
        price_period: 'total',
        published_at: at,
        permit: { number: '7100000000', authority: 'dld', expires_on: day2 },
      },
    });
    dated = (await documents()).flatMap(operationsTakingDates);
  }, 60_000);

  /** Sends a sample with its date fields replaced by `edges` (kept where an edge is undefined). */
  async function send(sample: Sample, edges: Array<string | undefined>) {
    const search = new URLSearchParams(withEdges(sample.query ?? {}, edges) as Record<string, string>).toString();
    const body = sample.body && withEdges(sample.body, edges);
    const text = body === undefined ? undefined : JSON.stringify(body);
    // raw: the samples of every dated operation, their date fields replaced, sent as signed or written
    const res = await api.request(`${sample.path}${search ? `?${search}` : ''}`, {
      method: sample.op.split(' ')[0],
      host: sample.host,
      key: sample.key,
      headers: { ...sample.headers, ...(text !== undefined && sample.sign ? sample.sign(text) : {}) },
      body: text,
    });
    return { res, sent: `${sample.op} ?${search} ${JSON.stringify(body)} → ${res.text}` };
  }

  it('has a valid request of every documented operation that takes a date or an instant', async () => {
    expect(dated.length).toBeGreaterThan(0);
    expect(dated.filter((op) => !samples.some((s) => s.op === op))).toEqual([]);
    for (const sample of samples) {
      const { res, sent } = await send(sample, []);
      expect(res.status, sent).toBeLessThan(300);
    }
  });

  it('with edge dates and instants in the date fields of valid requests', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.array(fc.option(edgeValue, { freq: 3 }), { minLength: 4, maxLength: 4 }),
        async (pick, picked) => {
          const { res, sent } = await send(
            samples[pick % samples.length]!,
            picked.map((e) => e ?? undefined),
          );
          expect(res.status, sent).toBeLessThan(500);
          if (res.status >= 400) expect(res.headers.get('content-type')).toBe('application/problem+json');
        },
      ),
      { numRuns: 300 },
    );
  }, 120_000);
});

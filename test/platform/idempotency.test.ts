import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { runScheduledWork, scheduledJobs } from '../../functions/jobs';
import { testClient } from '../support/client';
import { createCompany, createKey, useApi } from '../support/world';

/**
 * Idempotency-Key on every POST and PATCH of the public API (lib/idempotency.ts): the first answer is replayed
 * for the same key and body, another body is 422, a request in flight is 409, and concurrent identical requests
 * have one effect.
 */

let company: { id: string; host: string };
let key: string;
let otherKey: string;
let serial = 0;

const api = useApi({ env: { RATE_LIMIT_SERVER_KEY_PER_MINUTE: '100000' } });
beforeAll(async () => {
  company = await createCompany(api);
  const scopes = ['write:leads', 'read:leads', 'write:contacts', 'read:contacts', 'write:followups'] as const;
  key = (await createKey(api, company.id, { scopes: [...scopes] })).secret;
  otherKey = (await createKey(api, company.id, { scopes: [...scopes] })).secret;
});

const newKey = () => `idem-${Date.now()}-${serial++}`;
const leadBody = (email = `idem.${serial++}@example.com`) => ({ consent: true, consent_version: 'v1', email, message: 'Hello' });

/** The typed client on a server key (the file's key unless another is given). */
const clientOn = (serverKey = key) => testClient(api, { host: company.host, serverKey });
/** The Idempotency-Key header, when a key is given. */
const idem = (k?: string) => (k === undefined ? {} : { headers: { 'Idempotency-Key': k } });
/** POST /leads of `body` (any JSON: the refusals too) through the typed client. */
const lead = (body: Record<string, unknown>, k?: string, serverKey?: string) =>
  clientOn(serverKey).POST('/api/v1/leads', { body: body as never, ...idem(k) });

// raw: a body sent as the bytes written (key order, spacing) or a path the API does not declare
function post(path: string, body: unknown, idempotencyKey?: string, o: { key?: string; method?: string } = {}) {
  return api.request(path, {
    method: o.method ?? 'POST',
    host: company.host,
    key: o.key ?? key,
    body,
    headers: idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey },
  });
}

async function count(table: 'leads' | 'contacts', email: string): Promise<number> {
  const rows =
    table === 'contacts'
      ? await api.db.selectFrom('contacts').select('id').where('company_id', '=', company.id).where('email', '=', email).execute()
      : await api.db
          .selectFrom('leads')
          .innerJoin('contacts', 'contacts.id', 'leads.contact_id')
          .select('leads.id')
          .where('leads.company_id', '=', company.id)
          .where('contacts.email', '=', email)
          .execute();
  return rows.length;
}

async function leadEvents(reference: string): Promise<number> {
  const rows = await api.db
    .selectFrom('events')
    .select('id')
    .where('company_id', '=', company.id)
    .where('type', '=', 'lead.created')
    .where(sql<boolean>`data->>'reference' = ${reference}`)
    .execute();
  return rows.length;
}

describe('Idempotency-Key', () => {
  it('replays the first answer for the same key and body: one lead, one event', async () => {
    const body = leadBody();
    const k = newKey();
    const first = await lead(body, k);
    expect(first.response.status).toBe(201);
    expect(first.response.headers.get('Idempotent-Replayed')).toBeNull();
    const again = await lead(body, k);
    expect(again.response.status).toBe(201);
    expect(again.response.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.response.headers.get('Content-Type')).toBe(first.response.headers.get('Content-Type'));
    expect(again.data).toEqual(first.data);
    expect(await count('leads', body.email)).toBe(1);
    expect(await leadEvents(first.data?.reference as string)).toBe(1);
  });

  it('without the header, the same body twice is two leads (what the key protects against)', async () => {
    const body = leadBody();
    expect((await lead(body)).response.status).toBe(201);
    expect((await lead(body)).response.status).toBe(201);
    expect(await count('leads', body.email)).toBe(2);
  });

  it('compares JSON bodies by value: key order and spacing do not make another request', async () => {
    const body = leadBody();
    const k = newKey();
    const first = await post('/api/v1/leads', JSON.stringify(body), k);
    const reordered = `{ "message": "Hello",  "email": ${JSON.stringify(body.email)}, "consent_version": "v1", "consent": true }`;
    const again = await post('/api/v1/leads', reordered, k);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.json.reference).toBe(first.json.reference);
  });

  it('answers 422 for the same key with another body, and changes nothing', async () => {
    const k = newKey();
    const body = leadBody();
    const first = await lead(body, k);
    expect(first.response.status).toBe(201);
    const other = leadBody();
    const res = await lead(other, k);
    expect(res.response.status).toBe(422);
    expect(res.response.headers.get('Content-Type')).toBe('application/problem+json');
    expect(res.error?.code).toBe('idempotency_key_reused');
    expect(await count('leads', other.email)).toBe(0);
  });

  it('keeps keys apart per caller and per route', async () => {
    const k = newKey();
    const body = leadBody();
    const mine = await lead(body, k);
    const theirs = await lead(body, k, otherKey);
    expect(theirs.response.status).toBe(201);
    expect(theirs.response.headers.get('Idempotent-Replayed')).toBeNull();
    expect(theirs.data?.reference).not.toBe(mine.data?.reference);
    const contact = await clientOn().POST('/api/v1/contacts', { body: { email: `c.${serial++}@example.com` }, ...idem(k) });
    expect(contact.response.status).toBe(201);
    expect(contact.response.headers.get('Idempotent-Replayed')).toBeNull();
  });

  it('does not keep a validation failure: the fixed request runs with the same key', async () => {
    const k = newKey();
    const bad = await lead({ consent: true }, k);
    expect(bad.response.status).toBe(400);
    const body = leadBody();
    const fixed = await lead(body, k);
    expect(fixed.response.status).toBe(201);
    expect(fixed.response.headers.get('Idempotent-Replayed')).toBeNull();
  });

  it('keeps a refusal the request reached (404) and replays it', async () => {
    const k = newKey();
    const first = await post('/api/v1/leads/L-NOPE/x', {}, k);
    expect(first.status).toBe(404);
    const patch = { status: 'contacted' };
    const missing = await clientOn().PATCH('/api/v1/leads/{reference}', {
      params: { path: { reference: 'L-DOES-NOT-EXIST' } },
      body: patch as never,
      ...idem(k),
    });
    expect(missing.response.status).toBe(404);
    const again = await clientOn().PATCH('/api/v1/leads/{reference}', {
      params: { path: { reference: 'L-DOES-NOT-EXIST' } },
      body: patch as never,
      ...idem(k),
    });
    expect(again.response.status).toBe(404);
    expect(again.response.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.error).toEqual(missing.error);
  });

  it.each([['a'.repeat(256)], ['has space'], ['tab\there'], ['naïve']])('refuses the malformed key %j with 400', async (bad) => {
    const body = leadBody();
    const res = await lead(body, bad).catch(() => undefined);
    // A header value outside Latin-1 cannot even be sent by fetch; every other one is refused by the API.
    if (res === undefined) return;
    expect(res.response.status).toBe(400);
    expect(res.error?.errors?.[0]?.path).toBe('Idempotency-Key');
    expect(await count('leads', body.email)).toBe(0);
  });

  it('answers 409 while the first request is in flight, and lets a retry take over an abandoned claim', async () => {
    const k = newKey();
    const body = leadBody();
    const first = await lead(body, k);
    const caller = (await api.db.selectFrom('idempotency_keys').select('caller').where('key', '=', k).executeTakeFirstOrThrow())
      .caller;
    const k2 = newKey();
    // The claim of a request still running (its answer not yet stored), made as the middleware makes it.
    await api.db
      .insertInto('idempotency_keys')
      .values({
        company_id: company.id,
        caller,
        route: 'POST /api/v1/leads',
        key: k2,
        request_hash: (await rowOf(k)).request_hash,
      })
      .execute();
    const busy = await lead(body, k2);
    expect(busy.response.status).toBe(409);
    expect(busy.error?.code).toBe('idempotency_in_flight');
    expect(busy.response.headers.get('Retry-After')).toBe('1');
    // The process that held it died: after the lock timeout a retry runs the request.
    await api.db
      .updateTable('idempotency_keys')
      .set({ locked_at: sql<Date>`clock_timestamp() - interval '2 minutes'` })
      .where('key', '=', k2)
      .execute();
    const retried = await lead(body, k2);
    expect(retried.response.status).toBe(201);
    expect(retried.data?.reference).not.toBe(first.data?.reference);
  });

  it('forgets a key after 24 hours: the scheduler deletes it, and a late retry runs again', async () => {
    const k = newKey();
    const body = leadBody();
    const first = await lead(body, k);
    await api.db
      .updateTable('idempotency_keys')
      .set({ created_at: sql<Date>`clock_timestamp() - interval '24 hours 1 second'` })
      .where('key', '=', k)
      .execute();
    const late = await lead(body, k);
    expect(late.response.status).toBe(201);
    expect(late.response.headers.get('Idempotent-Replayed')).toBeNull();
    expect(late.data?.reference).not.toBe(first.data?.reference);
    await api.db
      .updateTable('idempotency_keys')
      .set({ created_at: sql<Date>`clock_timestamp() - interval '25 hours'` })
      .where('key', '=', k)
      .execute();
    const kept = newKey();
    await lead(leadBody(), kept);
    const jobs = scheduledJobs.filter((job) => job.name === 'idempotency_keys');
    const report = await runScheduledWork(api.platform.services(), jobs);
    expect(report.idempotency_keys).toBeGreaterThanOrEqual(1);
    expect(await api.db.selectFrom('idempotency_keys').select('key').where('key', '=', k).executeTakeFirst()).toBeUndefined();
    expect((await rowOf(kept)).status_code).toBe(201);
  });

  it('stores the answer encrypted: no personal data in clear text', async () => {
    const k = newKey();
    const body = leadBody();
    await lead(body, k);
    const row = await rowOf(k);
    expect(row.body?.startsWith('jwe:')).toBe(true);
    expect(JSON.stringify(row)).not.toContain(body.email);
  });

  it('gives concurrent identical requests one effect', async () => {
    const k = newKey();
    const body = leadBody();
    const answers = await Promise.all(Array.from({ length: 20 }, () => lead(body, k)));
    const statuses = answers.map((a) => a.response.status);
    expect(
      statuses.every((s) => s === 201 || s === 409),
      statuses.join(),
    ).toBe(true);
    const references = new Set(answers.filter((a) => a.response.status === 201).map((a) => a.data?.reference));
    expect(references.size).toBe(1);
    expect(await count('leads', body.email)).toBe(1);
    expect(await leadEvents([...references][0] as string)).toBe(1);
  });
});

async function rowOf(k: string) {
  return api.db.selectFrom('idempotency_keys').selectAll().where('key', '=', k).executeTakeFirstOrThrow();
}

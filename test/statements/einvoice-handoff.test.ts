import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScheduledWork } from '../../functions/jobs';
import { einvoiceDeadline, warnDueEinvoices } from '../../lib/einvoice/handoff';
import { type Prepared, sellerOf } from '../../lib/invoices';
import { pauseOutbound, resumeOutbound } from '../../lib/outbound';
import { heldReport } from '../../lib/scheduler';
import { delayBefore } from '../../lib/webhooks/schedule';
import { newSigningSecret } from '../../lib/webhooks/secrets';
import type { Company } from '../../schema/platform/db';
import { createTestApi, type TestApi } from '../support/harness';
import { feeDocument as feeDocumentOf, invoiceSettings, issueDocument } from '../support/invoices';
import { checkPintAeRules } from '../support/pint-ae';
import { adminOf, createKey } from '../support/world';
import { type Received, type Receiver, startReceiver } from '../webhooks/support';
import { type StatementWorld, statementWorld } from './support';

/**
 * The hand-off of e-invoices to the company's Accredited Service Provider (issue 35; lib/einvoice/handoff.ts): a real
 * HTTP server on loopback plays the provider. Documents are issued directly (lib/invoices.ts `issueCtes`); the
 * scheduler runs at times the test gives (no sleeps): each document is sent once, signed verifiably, tried again after
 * a 500 on the webhooks' schedule, held while outbound work is paused; the provider's signed answers are recorded, forged,
 * old and replayed ones refused; `invoice.einvoice_due` is recorded once per document not accepted. A database of this
 * file alone: the pause is the whole database's.
 */

let api: TestApi;
let w: StatementWorld;
let other: StatementWorld;
let company: Company;
let otherCompany: Company;
let asp: Receiver;
const secret = newSigningSecret();
const otherSecret = newSigningSecret();
/** What the provider answers next. */
let answer = 500;

const companyRow = async (id: string) =>
  (await api.db.selectFrom('companies').selectAll().where('id', '=', id).executeTakeFirstOrThrow()) as Company;

beforeAll(async () => {
  asp = await startReceiver(() => ({ status: answer }));
  api = await createTestApi({ ownDatabase: true, env: { RATE_LIMIT_SERVER_KEY_PER_MINUTE: '1000000' } });
  w = await statementWorld({ api, settings: invoiceSettings, company: { environment: 'development' } });
  other = await statementWorld({ api, settings: invoiceSettings, company: { environment: 'development' } });
  company = await companyRow(w.company.id);
  otherCompany = await companyRow(other.company.id);
});
afterAll(async () => {
  api.clock.set(null);
  await asp.close();
  await api.close();
});

/** A fee invoice of `amount` AED (VAT included) to the owner P-ASP, issued on 2027-02-03 by the company `of`. */
function feeDocument(of: Company, amount: string): Prepared {
  const seller = sellerOf(of, '2027-02-03');
  if ('issued' in seller) throw new Error(JSON.stringify(seller.problems));
  return feeDocumentOf(seller, amount, 'P-ASP');
}

/** Issues a document for `key` in one statement; its id, number and XML. */
async function issue(of: Company, amount: string, key: string) {
  const prepared = feeDocument(of, amount);
  await issueDocument(api.db, of.id, prepared, key);
  const row = await api.db
    .selectFrom('tax_documents')
    .select(['id', 'number', 'xml'])
    .where('id', '=', prepared.id)
    .executeTakeFirstOrThrow();
  expect(checkPintAeRules(row.xml)).toEqual([]);
  return row;
}

const handOff = (id: string) =>
  api.db
    .selectFrom('tax_documents')
    .select([
      'einvoice_status',
      'einvoice_attempts',
      'einvoice_next_attempt_at',
      'einvoice_last_error',
      'einvoice_reasons',
      'einvoice_answered_at',
    ])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

/** The scheduler as it runs at `at` (the jobs' clock and the hand-off's). */
const schedulerAt = (at: Date) => {
  const services = api.platform.services();
  return runScheduledWork({ ...services, now: () => at, webhooks: { ...services.webhooks, now: () => at } });
};

/** The provider's answer, signed with `key` at `at` (seconds) as message `id`: raw, the bytes exactly as signed. */
function sendAnswer(body: unknown, o: { key?: string; at?: Date; id?: string; host?: string; signature?: string } = {}) {
  const text = JSON.stringify(body);
  const at = o.at ?? api.clock.now();
  const id = o.id ?? `msg_${crypto.randomUUID()}`;
  const signature = o.signature ?? new Webhook(o.key ?? secret).sign(id, at, text);
  // raw: a signed body, exactly as the provider signs it (the typed client would serialise it itself)
  return api.request('/api/v1/inbound/einvoice', {
    method: 'POST',
    host: o.host ?? w.company.host,
    body: text,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    },
  });
}

const admin = () => adminOf(api);

/**
 * Whether a request the provider got is signed with `key` as Standard Webhooks says (computed here with node:crypto, not
 * with the API's code): `v1,` and the base64 HMAC-SHA256, keyed with the secret's base64 bytes, of `id.timestamp.body`.
 */
function signedBy(key: string, received: Received): boolean {
  const { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': header } = received.headers;
  const mac = createHmac('sha256', Buffer.from(key.slice('whsec_'.length), 'base64'))
    .update(`${id}.${timestamp}.${received.body}`)
    .digest('base64');
  return (header ?? '').split(' ').includes(`v1,${mac}`);
}

describe('the provider’s settings', () => {
  it('refuses a bad URL or secret at its field, stores the secret encrypted and never shows it', async () => {
    const put = (body: { url: string; secret: string }, id = w.company.id) =>
      admin().PUT('/admin/v1/companies/{company_id}/einvoicing', { params: { path: { company_id: id } }, body });
    const bad = await put({ url: 'ftp://asp.example/in', secret });
    expect(bad.response.status).toBe(400);
    expect((bad.error as any).errors[0].path).toBe('url');
    const badSecret = await put({ url: `${asp.url}/einvoices`, secret: 'not-a-secret' });
    expect(badSecret.response.status).toBe(400);
    expect((badSecret.error as any).errors[0].path).toBe('secret');
    // A production workspace refuses loopback, as webhook URLs.
    const prod = await api.db
      .updateTable('companies')
      .set({ environment: 'production' })
      .where('id', '=', other.company.id)
      .returning('id')
      .executeTakeFirstOrThrow();
    const refused = await put({ url: 'https://127.0.0.1/einvoices', secret }, prod.id);
    expect(refused.response.status).toBe(400);
    expect((refused.error as any).errors[0]).toMatchObject({ path: 'url', code: 'url_not_allowed' });
    await api.db.updateTable('companies').set({ environment: 'development' }).where('id', '=', prod.id).execute();
    expect((await companyRow(w.company.id)).einvoice_url).toBeNull();

    const set = await put({ url: `${asp.url}/einvoices`, secret });
    expect(set.response.status).toBe(200);
    expect(set.data).toEqual({ configured: true, url: `${asp.url}/einvoices` });
    const shown = await admin().GET('/admin/v1/companies/{company_id}', { params: { path: { company_id: w.company.id } } });
    expect(shown.data?.einvoicing).toEqual({ configured: true, url: `${asp.url}/einvoices` });
    expect(JSON.stringify(shown.data)).not.toContain(secret.slice(6));
    const stored = await companyRow(w.company.id);
    expect(stored.einvoice_secret_jwe).not.toContain(secret.slice(6));

    const removed = await admin().DELETE('/admin/v1/companies/{company_id}/einvoicing', {
      params: { path: { company_id: other.company.id } },
    });
    expect(removed.data).toEqual({ configured: false, url: null });
    expect((await put({ url: `${asp.url}/other`, secret: otherSecret }, other.company.id)).response.status).toBe(200);
  });
});

describe('the hand-off', () => {
  let first: { id: string; number: string; xml: string };
  const t0 = new Date(Date.now() + 60_000);

  it('sends a due document once, signed, as its XML; tries again after a 500 on the webhooks’ schedule', async () => {
    first = await issue(company, '1050.00', 'asp-1');
    answer = 500;
    const before = asp.requests.length;
    const run = await schedulerAt(t0);
    expect(run.einvoice_handoff).toMatchObject({ sent: 0, failed: 1 });
    let state = await handOff(first.id);
    expect(state).toMatchObject({ einvoice_status: 'pending', einvoice_attempts: 1, einvoice_last_error: 'HTTP 500' });
    expect(state.einvoice_next_attempt_at?.getTime()).toBe(t0.getTime() + delayBefore(first.id, 2));

    // Not due yet one second later: nothing sent.
    await schedulerAt(new Date(t0.getTime() + 1_000));
    const mine = () => asp.requests.slice(before).filter((r) => r.path === '/einvoices');
    expect(mine()).toHaveLength(1);

    answer = 202;
    const retryAt = new Date(t0.getTime() + 10_000);
    await schedulerAt(retryAt);
    expect(mine()).toHaveLength(2);
    state = await handOff(first.id);
    expect(state).toMatchObject({
      einvoice_status: 'pending',
      einvoice_attempts: 2,
      einvoice_last_error: null,
      einvoice_next_attempt_at: null,
    });
    // Sent once: later runs send nothing more while the answer is awaited.
    await schedulerAt(new Date(t0.getTime() + 3_600_000));
    expect(mine()).toHaveLength(2);

    const sent = mine()[1]!;
    expect(sent.method).toBe('POST');
    expect(sent.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(sent.headers['einvoice-document-id']).toBe(first.id);
    expect(sent.headers['einvoice-document-number']).toBe(first.number);
    expect(sent.body).toBe(first.xml);
    expect(sent.headers['webhook-id']).toBe(first.id);
    expect(sent.headers['webhook-timestamp']).toBe(String(Math.floor(retryAt.getTime() / 1000)));
    // Verifiable with the shared secret (Standard Webhooks), as any provider would.
    expect(signedBy(secret, sent)).toBe(true);
    expect(signedBy(otherSecret, sent)).toBe(false);
  });

  it('holds everything while outbound work is paused, and sends once resumed', async () => {
    const second = await issue(company, '525.00', 'asp-2');
    await pauseOutbound(api.db, new Date(), 'restored from a copy');
    const before = asp.requests.length;
    const at = new Date(t0.getTime() + 7_200_000);
    const held = await schedulerAt(at);
    expect(held.einvoice_handoff).toEqual(heldReport);
    expect(asp.requests.length).toBe(before);
    expect(await handOff(second.id)).toMatchObject({ einvoice_attempts: 0 });
    await resumeOutbound(api.db);
    await schedulerAt(at);
    const sent = asp.requests.slice(before).filter((r) => r.headers['einvoice-document-id'] === second.id);
    expect(sent).toHaveLength(1);
    expect(await handOff(second.id)).toMatchObject({ einvoice_attempts: 1, einvoice_next_attempt_at: null });
  });

  it('sends another company’s documents to its own provider, signed with its own secret', async () => {
    const theirs = await issue(otherCompany, '210.00', 'asp-other');
    await schedulerAt(new Date(t0.getTime() + 7_300_000));
    const sent = asp.requests.filter((r) => r.headers['einvoice-document-id'] === theirs.id);
    expect(sent.map((r) => r.path)).toEqual(['/other']);
    expect(signedBy(otherSecret, sent[0]!)).toBe(true);
  });
});

describe('the provider’s answers', () => {
  it('records accepted and rejected answers; refuses forged, old and replayed ones; 404 for unknown or another company’s', async () => {
    api.clock.set(new Date('2027-02-05T10:00:00Z'));
    const docs = await api.db.selectFrom('tax_documents').select(['id', 'number', 'company_id']).orderBy('sequence').execute();
    const [first, second] = docs.filter((d) => d.company_id === company.id);
    const theirs = docs.find((d) => d.company_id === otherCompany.id)!;
    const key = await createKey(api, w.company.id, { scopes: ['read:invoices'] });
    const read = (number: string) => api.request(`/api/v1/invoices/${number}`, { host: w.company.host, key: key.secret });

    // Forged (another secret), old (10 minutes), unsigned: 401 problem+json, nothing changed.
    const forged = await sendAnswer({ number: first!.number, status: 'accepted' }, { key: otherSecret });
    expect(forged.status).toBe(401);
    expect(forged.headers.get('content-type')).toContain('application/problem+json');
    expect(forged.json.code).toBe('signature_rejected');
    const old = await sendAnswer(
      { number: first!.number, status: 'accepted' },
      { at: new Date(api.clock.now().getTime() - 10 * 60_000) },
    );
    expect(old.status).toBe(401);
    const unsigned = await sendAnswer({ number: first!.number, status: 'accepted' }, { signature: 'v1,AAAA' });
    expect(unsigned.status).toBe(401);
    expect((await handOff(first!.id)).einvoice_status).toBe('pending');

    // Unknown, another company's (signed with this company's secret, at this company's host): 404.
    expect((await sendAnswer({ number: 'INV-999999', status: 'accepted' })).status).toBe(404);
    expect((await sendAnswer({ document_id: theirs.id, status: 'accepted' })).status).toBe(404);
    // Signed by the other company's provider at this host: its secret is not this company's.
    expect((await sendAnswer({ document_id: theirs.id, status: 'accepted' }, { key: otherSecret })).status).toBe(401);
    // Bad body, signed: 400 at the field.
    const noReason = await sendAnswer({ number: second!.number, status: 'rejected' });
    expect(noReason.status).toBe(400);
    expect(noReason.json.errors[0].path).toBe('reasons');

    const accepted = await sendAnswer({ document_id: first!.id, status: 'accepted' }, { id: 'msg_accept_1' });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.json).toEqual({ id: first!.id, number: first!.number, status: 'accepted', recorded: true });
    const shown = await read(first!.number);
    expect(shown.json.einvoice).toMatchObject({
      status: 'accepted',
      reasons: null,
      answered_at: '2027-02-05T10:00:00.000Z',
      deadline: '2027-02-17',
    });
    // The same message again: a repeat, nothing changed.
    const replay = await sendAnswer({ document_id: first!.id, status: 'accepted' }, { id: 'msg_accept_1' });
    expect(replay.json).toMatchObject({ status: 'accepted', recorded: false });
    // An acceptance is final.
    const reversed = await sendAnswer({ number: first!.number, status: 'rejected', reasons: ['late'] });
    expect(reversed.status).toBe(409);
    expect(reversed.json.code).toBe('invalid_transition');

    const reasons = ['ibr-134-ae: seller TRN missing', 'Buyer endpoint unknown'];
    const rejected = await sendAnswer({ number: second!.number, status: 'rejected', reasons }, { id: 'msg_reject_1' });
    expect(rejected.json).toEqual({ id: second!.id, number: second!.number, status: 'rejected', recorded: true });
    expect(await handOff(second!.id)).toMatchObject({ einvoice_status: 'rejected', einvoice_reasons: reasons });
    // An answer signed before the one recorded never overwrites it.
    const older = await sendAnswer(
      { number: second!.number, status: 'accepted' },
      { at: new Date(api.clock.now().getTime() - 60_000) },
    );
    expect(older.json).toMatchObject({ status: 'rejected', recorded: false });

    const due = await api.request('/api/v1/invoices?einvoice_due_by=2027-02-17', { host: w.company.host, key: key.secret });
    expect(due.json.results.map((r: { number: string }) => r.number)).toEqual([second!.number]);
    expect(
      (await api.request('/api/v1/invoices?einvoice_due_by=2027-02-16', { host: w.company.host, key: key.secret })).json.results,
    ).toEqual([]);
  });
});

describe('the deadline warning', () => {
  it('records invoice.einvoice_due once per document not accepted, 3 days before its deadline', async () => {
    expect(einvoiceDeadline('2027-02-03')).toBe('2027-02-17');
    const events = () =>
      api.db.selectFrom('events').select(['company_id', 'data']).where('type', '=', 'invoice.einvoice_due').execute();
    expect(await warnDueEinvoices(api.db, new Date('2027-02-13T12:00:00Z'))).toBe(0);
    expect(await events()).toEqual([]);
    // The company's time zone (Asia/Dubai, UTC+4): 2027-02-14 begins at 20:00 UTC the day before.
    const warned = await warnDueEinvoices(api.db, new Date('2027-02-14T08:00:00Z'));
    const docs = await api.db.selectFrom('tax_documents').select(['id', 'number', 'company_id', 'einvoice_status']).execute();
    const notAccepted = docs.filter((d) => d.einvoice_status !== 'accepted');
    expect(warned).toBe(notAccepted.length);
    const recorded = await events();
    expect(recorded.map((e) => e.data).sort((a: any, b: any) => a.invoice_id.localeCompare(b.invoice_id))).toEqual(
      notAccepted
        .map((d) => ({ invoice_id: d.id, reference: d.number }))
        .sort((a, b) => a.invoice_id.localeCompare(b.invoice_id)),
    );
    // Once: later runs warn no more.
    expect(await warnDueEinvoices(api.db, new Date('2027-02-20T08:00:00Z'))).toBe(0);
    const run = await schedulerAt(new Date('2027-02-21T08:00:00Z'));
    expect(run.einvoice_due).toBe(0);
    expect(await events()).toHaveLength(notAccepted.length);
  });
});

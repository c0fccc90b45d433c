import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { type Keyring, decryptJson, encryptJson } from '../crypto-jwe';
import type { Db } from '../db/index';
import { addDays } from '../dates';
import { eventsCtes, newEventId } from '../events';
import { outboundRunning } from '../outbound';
import { statusMachine } from '../transitions';
import { post, signedHeaders } from '../webhooks/attempt';
import { delayBefore, maxAttempts } from '../webhooks/schedule';
import type { WebhookRuntime } from '../webhooks/types';

/**
 * The hand-off of issued e-invoices to the company's Accredited Service Provider (ASP) and the deadline warning
 * (docs/pint-ae.md, "Hand-off to the Accredited Service Provider"). No ASP publishes an API one could code against, so
 * the protocol is ours, modelled on our webhooks: Standard Webhooks signatures (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature` = `v1,` base64 HMAC-SHA256 over `id.timestamp.body`) with the secret the company shares with its
 * provider, both ways.
 *
 * - Out: scheduled work POSTs each `pending` document whose `einvoice_next_attempt_at` is due, for a company with a
 *   provider configured, as its PINT AE XML (`application/xml`, the bytes issued), through the outbound guard; a 2xx
 *   records the attempt and waits for the answer (no next attempt); anything else is tried again on the webhooks'
 *   schedule (lib/webhooks/schedule.ts), the error kept, and given up after its last attempt. Nothing is claimed while
 *   outbound work is paused.
 * - In: the provider's answer (`accepted`, or `rejected` with its reasons) to POST /api/v1/inbound/einvoice, signed the
 *   same way, checked here ({@link answerSignatureFailure}).
 * - The warning: `invoice.einvoice_due` once per document not yet accepted, {@link einvoiceWarningDays} before its
 *   deadline ({@link einvoiceDeadline}).
 */

/**
 * Days after the date of supply by which the e-invoice is issued and transmitted: Federal Decree-Law No. 8 of 2017,
 * Article 67 (a tax invoice within 14 days of the date of supply), which Ministerial Decision No. 243 of 2025 applies to
 * e-invoices and e-credit notes (docs/pint-ae.md cites the sources). A document's issue date is its date of supply here
 * (every issuer issues on the day of the supply).
 */
export const einvoiceDeadlineDays = 14;
/** Days before the deadline at which a document not yet accepted is warned about (`invoice.einvoice_due`). */
export const einvoiceWarningDays = 3;

/** The last day for a document issued on `issueDate` (YYYY-MM-DD). */
export const einvoiceDeadline = (issueDate: string) => addDays(issueDate, einvoiceDeadlineDays);

export const einvoiceUserAgent = 'PropertyAPI-EInvoice/1.0';

/** The tolerance of an answer's `webhook-timestamp` (Standard Webhooks' recommendation, as our inbound receivers). */
export const answerToleranceSeconds = 5 * 60;

/** A provider's shared secret as the admin API takes it: a Standard Webhooks secret (`whsec_` and base64). */
export const einvoiceSecretPattern = /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/;

/** The secret as stored (`companies.einvoice_secret_jwe`): sealed with the details keys, as the Turnstile secret. */
export const sealEinvoiceSecret = (keyring: Keyring | undefined, secret: string) => encryptJson(keyring, secret);

export async function openEinvoiceSecret(keyring: Keyring | undefined, sealed: string): Promise<string> {
  const value = await decryptJson(keyring, sealed);
  if (typeof value !== 'string') throw new Error('the stored e-invoicing secret is not a string');
  return value;
}

/** The headers of a hand-off: the webhooks' signature headers, the XML's type and the document's id, number and kind. */
export function handOffHeaders(
  secret: string,
  document: { id: string; number: string; kind: string },
  at: Date,
  xml: string,
): Record<string, string> {
  return {
    ...signedHeaders([secret], document.id, at, xml, einvoiceUserAgent),
    'content-type': 'application/xml; charset=utf-8',
    'einvoice-document-id': document.id,
    'einvoice-document-number': document.number,
    'einvoice-document-kind': document.kind,
  };
}

/** An attempt holds its document for the timeout plus this margin; a crashed attempt is tried again after it. */
const leaseMarginMs = 5_000;

type DueDocument = {
  id: string;
  number: string;
  kind: string;
  environment: 'production' | 'development';
  einvoice_url: string | null;
  einvoice_secret_jwe: string | null;
};

/**
 * Sends the documents that are due (a few at a time, oldest due first): each claimed first (its next attempt moved past
 * the attempt's lease, by a conditional update: concurrent runs never send it twice at once, and never while outbound
 * work is paused), sent, then its attempt recorded. Returns how many the provider took (2xx).
 */
export async function sendDueEinvoices(
  db: Db,
  runtime: WebhookRuntime,
  keyring: Keyring | undefined,
  options: { limit?: number } = {},
): Promise<{ sent: number; failed: number }> {
  const now = runtime.now();
  const due = await db
    .selectFrom('tax_documents as d')
    .innerJoin('companies as c', 'c.id', 'd.company_id')
    .select(['d.id', 'd.number', 'd.kind', 'c.environment', 'c.einvoice_url', 'c.einvoice_secret_jwe'])
    .where('d.einvoice_status', '=', 'pending')
    .where('d.einvoice_next_attempt_at', '<=', now)
    .where('c.einvoice_url', 'is not', null)
    .orderBy('d.einvoice_next_attempt_at')
    .limit(options.limit ?? 50)
    .execute();
  const report = { sent: 0, failed: 0 };
  for (const document of due) {
    const outcome = await sendOne(db, runtime, keyring, document).catch((error: unknown) => {
      console.error(`e-invoice ${document.number} could not be sent:`, error);
      return 'failed' as const;
    });
    if (outcome === 'sent') report.sent++;
    else if (outcome === 'failed') report.failed++;
  }
  return report;
}

async function sendOne(
  db: Db,
  runtime: WebhookRuntime,
  keyring: Keyring | undefined,
  document: DueDocument,
): Promise<'sent' | 'failed' | 'busy'> {
  const now = runtime.now();
  if (document.einvoice_url === null || document.einvoice_secret_jwe === null) return 'busy';
  const claimed = await db
    .updateTable('tax_documents')
    .set({ einvoice_next_attempt_at: new Date(now.getTime() + runtime.timeoutMs + leaseMarginMs) })
    .where('id', '=', document.id)
    .where('einvoice_status', '=', 'pending')
    .where('einvoice_next_attempt_at', '<=', now)
    .where(outboundRunning)
    .returning(['xml', 'einvoice_attempts'])
    .executeTakeFirst();
  if (!claimed) return 'busy';
  const secret = await openEinvoiceSecret(keyring, document.einvoice_secret_jwe);
  const headers = handOffHeaders(secret, document, now, claimed.xml);
  const result = await post(runtime, document.environment, document.einvoice_url, {
    headers,
    body: claimed.xml,
    timeoutMs: runtime.timeoutMs,
  });
  const attempt = claimed.einvoice_attempts + 1;
  const code = result.statusCode;
  const took = code !== null && code >= 200 && code < 300;
  const retry = !took && attempt < maxAttempts;
  const error = took ? null : (result.error ?? `HTTP ${code}`);
  // The webhooks' schedule: the wait before the next attempt, jittered by the document's id.
  const next = retry ? new Date(now.getTime() + delayBefore(document.id, attempt + 1)) : null;
  await db
    .updateTable('tax_documents')
    .set({
      einvoice_attempts: attempt,
      // An answer that came while the POST was in flight keeps the document settled.
      einvoice_next_attempt_at: sql<Date | null>`case when einvoice_status = 'pending' then ${next}::timestamptz end`,
      einvoice_last_error: error === null ? null : retry ? error : `${error} (gave up after ${attempt} attempts)`,
    })
    .where('id', '=', document.id)
    .execute();
  return took ? 'sent' : 'failed';
}

/**
 * Why an answer's signature fails, or null when the company's provider signed it: Standard Webhooks over
 * `webhook-id.webhook-timestamp.body` with the shared secret, compared in constant time with each `v1,` signature of
 * the header, the timestamp within {@link answerToleranceSeconds} of `now` (time is the caller's: the API's clock).
 */
export function answerSignatureFailure(body: string, headers: Headers, secret: string, now: Date): string | null {
  const id = headers.get('webhook-id') ?? '';
  const timestamp = headers.get('webhook-timestamp') ?? '';
  const signatures = (headers.get('webhook-signature') ?? '').split(' ').filter(Boolean);
  if (!id || !timestamp || signatures.length === 0) {
    return 'The webhook-id, webhook-timestamp and webhook-signature headers are required.';
  }
  if (!/^\d{1,12}$/.test(timestamp)) return 'The webhook-timestamp is not a number of seconds.';
  const seconds = Number(timestamp);
  if (Math.abs(now.getTime() / 1000 - seconds) > answerToleranceSeconds) {
    return `The webhook-timestamp is more than ${answerToleranceSeconds / 60} minutes from now.`;
  }
  let expected: string;
  try {
    expected = new Webhook(secret).sign(id, new Date(seconds * 1000), body);
  } catch {
    return 'The signature could not be checked.';
  }
  const match = signatures.reduce((found, signature) => constantTimeEqual(signature, expected) || found, false);
  return match ? null : 'No signature matches.';
}

/** Equal strings, compared without stopping at the first difference. */
function constantTimeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < x.length; i++) diff |= (x[i] ?? 0) ^ (y[i % y.length] ?? 0);
  return diff === 0;
}

/** The provider's states of a document and the answers that may follow each (the one transitions table). */
export const einvoiceMachine = statusMachine<'pending' | 'accepted' | 'rejected'>('e-invoice of document', {
  pending: ['accepted', 'rejected'],
  // A provider that rejected may accept later (its own failure, put right); an acceptance is final.
  rejected: ['accepted'],
  accepted: [],
});

const warnBatch = 500;

/** Days after its issue date on which a document not yet accepted is warned about. */
export const einvoiceWarningAfterDays = einvoiceDeadlineDays - einvoiceWarningDays;

/** The warning's step narrowed to one document (`events trigger`'s fixture of `invoice.einvoice_due`, issue 38). */
type WarnOnly = { documentId?: string };

/** Documents not yet accepted nor warned about whose warning day (the company's time zone) has come (`only`: that one). */
function dueForWarning(db: Db, now: Date, only: WarnOnly) {
  const lead = einvoiceWarningAfterDays;
  const due = db
    .selectFrom('tax_documents as d')
    .innerJoin('companies as c', 'c.id', 'd.company_id')
    .where('d.einvoice_status', '<>', 'accepted')
    .where('d.einvoice_due_warned_at', 'is', null)
    .where(sql<boolean>`d.issue_date + ${lead}::int <= (${now}::timestamptz at time zone c.time_zone)::date`);
  return only.documentId === undefined ? due : due.where('d.id', '=', only.documentId);
}

/**
 * Scheduled: `invoice.einvoice_due` (ids only) once for each document not yet accepted whose deadline is at most
 * {@link einvoiceWarningDays} days after today (the company's time zone), whether or not it has been sent. One read of
 * the companies with something to warn about; then per company, batches of one read and one statement that marks the
 * documents (`einvoice_due_warned_at is null` re-checked under the row lock) with an event for each it marked, so runs
 * from several places warn once. Returns how many were warned about. `only.documentId`: that document only, if due.
 */
export async function warnDueEinvoices(db: Db, now: Date, only: WarnOnly = {}): Promise<number> {
  const companies = await dueForWarning(db, now, only).select('d.company_id').distinct().execute();
  let count = 0;
  for (const { company_id: companyId } of companies) {
    for (;;) {
      const due = await dueForWarning(db, now, only)
        .where('d.company_id', '=', companyId)
        .select('d.id')
        .orderBy('d.issue_date')
        .orderBy('d.sequence')
        .limit(warnBatch)
        .execute();
      if (due.length === 0) break;
      const { rows } = await sql<{ warned: string }>`
        with claimed as (
          update tax_documents t set einvoice_due_warned_at = ${now}::timestamptz
          from unnest(${due.map((d) => d.id)}::uuid[], ${due.map(() => newEventId())}::text[]) as c (id, event_id)
          where t.id = c.id and t.einvoice_due_warned_at is null and t.einvoice_status <> 'accepted'
          returning t.id, t.number, c.event_id
        ),
        ${eventsCtes(
          'due',
          { companyId, type: 'invoice.einvoice_due', causedBy: 'system' },
          sql`select claimed.event_id as id, jsonb_build_object('invoice_id', claimed.id::text, 'reference', claimed.number) as data
            from claimed`,
        )}
        select count(*)::text as warned from claimed`.execute(db);
      count += Number(rows[0]?.warned ?? 0);
      if (due.length < warnBatch) break;
    }
  }
  return count;
}

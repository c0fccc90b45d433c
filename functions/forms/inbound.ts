import type { z } from '@hono/zod-openapi';
import { base64url } from 'jose';
import { sql } from 'kysely';
import { auditCte } from '../../lib/audit';
import { sha256, timingSafeEqual } from '../../lib/crypto';
import { encryptJson, type Keyring, keyringOf, openSecret } from '../../lib/crypto-jwe';
import type { Executor } from '../../lib/db/index';
import type { Services } from '../../lib/env';
import type { DetailValue } from '../../lib/details';
import { ApiError, notFound } from '../../lib/errors';
import { parseJsonBody } from '../../lib/json-body';
import { normalisePhone, phoneCountryOf } from '../../lib/people-keys';
import { rateLimitHeaders } from '../../lib/ratelimit/index';
import type { InboundChannelRow, InboundKind } from '../../schema/forms/db';
import { withoutCardNumbers } from '../../schema/common/card-numbers';
import { type InboundReceipt, PropertyFinderEvent, SignedLeadEnvelope, WhatsAppDelivery } from '../../schema/forms/inbound';
import type { Company } from '../../schema/platform/db';
import { type FailedItem, type InboundLead, type InboundParsed, storable } from './inbound-lead';
import { type ItemFailure, recordLead } from './lead-record';
import { propertyFinderLeads, propertyFinderSignatureFailure } from './property-finder';
import { signedFailure, signedLeads } from './signed';
import { whatsAppLeads, whatsAppSignatureFailure } from './whatsapp';

/**
 * The inbound receivers (docs/api-reference.md, "Inbound channels"): a delivery to `/inbound/{token}/{kind}` finds its
 * channel by the token's hash (404 for any other token: a rotated one included), has its raw body verified with the
 * channel's secret before anything reads it, is read as its source publishes it, and is recorded before the answer:
 * each enquiry in one statement (functions/forms/lead-record.ts recordLead), so a 2xx means committed, and a source's retry
 * after a failure is recorded once.
 */

/** A conversation's messages within this many hours of its last one join its open lead (company setting). */
export const defaultConversationHours = 24;

/** Verification failures are counted per window; the third in a window writes one audit row, at most one a window. */
const failureWindowMinutes = 15;
const failuresAudited = 3;
/** At most this many failures a window reach the database for one channel; more are answered 429 at once. */
const failurePolicy = { name: 'inbound_failures', limit: 60, windowSeconds: failureWindowMinutes * 60 };

/**
 * The channel of `token` for `kind` in the host's company (404 otherwise: an unknown, rotated or another kind's
 * token). On Node a found channel is kept in memory (lib/company-cache.ts, under the company's id and the token's
 * hash) until the database announces a change to the company's channels (migration 0068): a rotation, a new secret
 * or a removal takes effect as an API key's does. An unknown token always asks the database; a channel's failure
 * counts are never taken from the kept row (`refuse` reads them from the table).
 */
export async function channelByToken(
  services: Pick<Services, 'db' | 'companyCache'>,
  companyId: string,
  kind: InboundKind,
  token: string,
): Promise<InboundChannelRow> {
  const hash = await sha256(token);
  const load = async () => {
    const row = await services.db
      .selectFrom('inbound_channels')
      .selectAll()
      .where('company_id', '=', companyId)
      .where('token_hash', '=', hash)
      .executeTakeFirst();
    return row && { companyId, value: row };
  };
  const channel = services.companyCache
    ? await services.companyCache.lookupKey(`inbound ${companyId} ${base64url.encode(hash)}`, load)
    : (await load())?.value;
  if (!channel || channel.kind !== kind) throw notFound('This inbound address');
  return channel;
}

/**
 * A channel's secret, opened once per row: a channel kept in memory (above) is opened by its first delivery, and a
 * change to it drops the row and so its opened secret. A row read for one request (Workers) is opened for it alone.
 */
const openedSecrets = new WeakMap<InboundChannelRow, Promise<string>>();
function channelSecret(keyring: Keyring | undefined, channel: InboundChannelRow): Promise<string> {
  let opened = openedSecrets.get(channel);
  if (!opened) {
    opened = openSecret(keyring, channel.secret_jwe, channel.id);
    openedSecrets.set(channel, opened);
    // A secret that cannot be opened (503) is tried again by the next delivery.
    opened.catch(() => openedSecrets.delete(channel));
  }
  return opened;
}

/**
 * Counts a verification failure of `channel` (one statement) and, at the window's third, writes one
 * `inbound.verification_failed` audit row with the count and the last reason; then refuses the request (403). A flood
 * is cut by the limiter before the database: the log gets one row a window, whatever is sent.
 */
async function refuse(services: Services, channel: InboundChannelRow, reason: string, now: Date): Promise<never> {
  const decision = await services.limiter.limit(failurePolicy, channel.id);
  if (!decision.success) {
    throw new ApiError('rate_limited', 'Too many failed verifications; retry later.', {
      headers: rateLimitHeaders(failurePolicy, decision),
    });
  }
  const at = sql`${now.toISOString()}::timestamptz`;
  const windowStart = sql`${at} - make_interval(mins => ${failureWindowMinutes})`;
  await sql`
    with counted as (
      select c.id, c.company_id, c.kind, c.source, c.failure_audited_at,
        case when c.failures_since > ${windowStart} then c.failures + 1 else 1 end as failures,
        case when c.failures_since > ${windowStart} then c.failures_since else ${at} end as since
      from inbound_channels c where c.id = ${channel.id}::uuid
      for update
    ),
    judged as (
      select *, failures >= ${failuresAudited}
        and (failure_audited_at is null or failure_audited_at <= ${windowStart}) as audit
      from counted
    ),
    changed as (
      update inbound_channels c set failures = j.failures, failures_since = j.since,
        failure_audited_at = case when j.audit then ${at} else c.failure_audited_at end
      from judged j where c.id = j.id
    ),
    audit_source as (select * from judged where audit),
    ${auditCte('audited', 'audit_source', {
      actor: 'system',
      action: 'inbound.verification_failed',
      subject: 'id',
      details: { last_reason: reason },
      columns: ['kind', 'source', 'failures', 'since'],
    })}
    select 1`.execute(services.db);
  throw new ApiError('signature_invalid', reason);
}

/** The raw body's verification by the channel's kind: a failure's reason, or null. */
function signatureFailure(kind: InboundKind, body: Uint8Array, headers: Headers, secret: string) {
  switch (kind) {
    case 'whatsapp':
      return whatsAppSignatureFailure(body, headers.get('x-hub-signature-256') ?? undefined, secret);
    case 'propertyfinder':
      return propertyFinderSignatureFailure(body, headers.get('x-signature') ?? undefined, secret);
    case 'signed':
      return signedFailure(new TextDecoder().decode(body), headers, secret);
  }
}

/**
 * The JSON of a verified body (lib/json-body.ts: its depth bounded first; 400 `invalid_json` when it is not JSON), read
 * by the source's schema (400 otherwise).
 */
function payloadOf<T>(
  body: Uint8Array,
  schema: { safeParse: (v: unknown) => { success: true; data: T } | { success: false } },
): T {
  const parsed = schema.safeParse(storable(parseJsonBody(body)));
  if (!parsed.success) throw new ApiError('invalid_request', 'The body is not in the source’s published shape.');
  return parsed.data;
}

/** The enquiries of a verified delivery, read as its source publishes them. */
function deliveryOf(company: Company, channel: InboundChannelRow, body: Uint8Array, headers: Headers, now: Date): InboundParsed {
  switch (channel.kind) {
    case 'whatsapp': {
      const hours = company.settings.inbound_conversation_hours ?? defaultConversationHours;
      return whatsAppLeads(payloadOf(body, WhatsAppDelivery), channel.source, hours, now);
    }
    case 'propertyfinder':
      return propertyFinderLeads(payloadOf(body, PropertyFinderEvent), channel.source, now);
    case 'signed':
      return signedLeads(payloadOf(body, SignedLeadEnvelope), headers.get('webhook-id') ?? '', channel.source, now);
  }
}

export type InboundReceiptValue = z.infer<typeof InboundReceipt>;

/**
 * An item's problem, when it is one of the item and not of the service: a 400 (an unreadable phone, no way to reach
 * the sender, a message id that failed before). Anything else (the database, a missing key) answers 5xx, and the
 * source's retry records what is missing.
 */
function itemFailure(error: unknown): ItemFailure | undefined {
  if (!(error instanceof ApiError) || error.status !== 400) return undefined;
  const first = error.errors?.[0];
  return { code: first?.code ?? error.code, path: first?.path || null };
}

/**
 * An enquiry kept with what can be kept: a phone number that cannot be read is dropped (named in `dropped`) when the
 * enquiry has an email to reach the person by; its details' texts without card numbers.
 */
function keptLead(company: Company, lead: InboundLead, dropped: string[]): InboundLead {
  let fields = lead.fields;
  if (fields.phone && fields.email) {
    try {
      normalisePhone(fields.phone, phoneCountryOf(company));
    } catch {
      fields = { ...fields, phone: undefined };
      if (!dropped.includes('phone')) dropped.push('phone');
    }
  }
  const details =
    lead.details && Object.fromEntries(Object.entries(lead.details).map(([key, value]) => [key, detailWithoutCards(value)]));
  return { ...lead, fields, details };
}

const detailWithoutCards = (value: DetailValue): DetailValue =>
  Array.isArray(value)
    ? value.map((item) => (typeof item === 'string' ? withoutCardNumbers(item) : item))
    : typeof value === 'string'
      ? withoutCardNumbers(value)
      : value;

/**
 * Records an item of a delivery that cannot be kept, once (one statement): its id in `inbound_messages` with the
 * failure (so the source's retry records nothing again) and, the first time only, an `inbound.item_failed` audit row
 * (subject the channel; details the source, the message id, the code and the field).
 */
async function recordFailure(db: Executor, channel: InboundChannelRow, item: FailedItem): Promise<void> {
  const failure = JSON.stringify({ code: item.code, path: item.path });
  await sql`
    with recorded as (
      insert into inbound_messages (company_id, source, message_id, occurred_at, failure)
      values (${channel.company_id}::uuid, ${channel.source}, ${item.id}, ${item.occurredAt.toISOString()}::timestamptz, ${failure}::jsonb)
      on conflict do nothing
      returning company_id, ${channel.id}::text as channel
    ),
    ${auditCte('audited', 'recorded', {
      actor: 'system',
      action: 'inbound.item_failed',
      subject: 'channel',
      details: { kind: channel.kind, source: channel.source, message_id: item.id, code: item.code, path: item.path },
    })}
    select 1`.execute(db);
}

/**
 * Receives one delivery to `/inbound/{token}/{kind}`: verified, read, and every enquiry in it recorded (each in one
 * statement: a failure of the service after some were recorded answers 5xx, and the source's retry records the rest,
 * the recorded ones being repeats). An item that cannot be kept never refuses the delivery: it is recorded as failed
 * (once) and named in the answer's `failures`, and the others are kept.
 */
export async function receiveInbound(
  services: Services,
  company: Company,
  kind: InboundKind,
  token: string,
  request: { body: Uint8Array; headers: Headers },
): Promise<InboundReceiptValue> {
  const now = services.now();
  const channel = await channelByToken(services, company.id, kind, token);
  const keyring = keyringOf(services.config);
  const secret = await channelSecret(keyring, channel);
  const failure = await signatureFailure(kind, request.body, request.headers, secret);
  if (failure) await refuse(services, channel, failure, now);
  const parsed = deliveryOf(company, channel, request.body, request.headers, now);
  const receipt: InboundReceiptValue = { recorded: 0, repeated: 0, ignored: parsed.ignored, leads: [], failed: 0 };
  const failures: FailedItem[] = [...parsed.failed];
  const dropped = [...parsed.dropped];
  for (const item of parsed.leads) {
    const lead = keptLead(company, item, dropped);
    const details = lead.details && Object.keys(lead.details).length > 0 ? await encryptJson(keyring, lead.details) : null;
    const fields = { ...lead.fields, detailsJwe: details, consent: null };
    try {
      const row = await recordLead(services.db, company, fields, lead.origin, `inbound:${channel.source}`, now);
      if (row.repeated) receipt.repeated++;
      else receipt.recorded++;
      if (!receipt.leads.includes(row.reference)) receipt.leads.push(row.reference);
    } catch (error) {
      const problem = itemFailure(error);
      if (!problem || lead.origin.sourceId === null) throw error;
      failures.push({ id: lead.origin.sourceId, ...problem, occurredAt: lead.origin.occurredAt });
    }
  }
  for (const item of failures) await recordFailure(services.db, channel, item);
  receipt.failed = failures.length;
  if (failures.length > 0) receipt.failures = failures.map(({ id, code, path }) => ({ id, code, path }));
  if (dropped.length > 0) receipt.dropped = dropped;
  return receipt;
}

/**
 * Meta's verification request (GET with `hub.mode=subscribe`, `hub.verify_token`, `hub.challenge`): the challenge when
 * the verify token is the channel's (compared in constant time); a wrong one is a verification failure.
 */
export async function confirmWhatsAppSubscription(
  services: Services,
  company: Company,
  token: string,
  query: { mode?: string; verifyToken?: string; challenge?: string },
): Promise<string> {
  const now = services.now();
  const channel = await channelByToken(services, company.id, 'whatsapp', token);
  const expected = await openSecret(keyringOf(services.config), channel.verify_token_jwe ?? '', channel.id);
  // Both hashed first, so the comparison takes the same time whatever the lengths.
  const matches = timingSafeEqual(await sha256(query.verifyToken ?? ''), await sha256(expected));
  if (query.mode !== 'subscribe' || !matches || !query.challenge) {
    await refuse(services, channel, 'The verification request does not carry this channel’s verify token.', now);
  }
  return query.challenge as string;
}

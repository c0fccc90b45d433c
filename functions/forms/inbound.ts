import { sql } from 'kysely';
import { sha256, timingSafeEqual } from '../../lib/crypto';
import { encryptJson, keyringOf, openSecret } from '../../lib/crypto-jwe';
import type { Executor } from '../../lib/db/index';
import type { Services } from '../../lib/env';
import { ApiError, notFound } from '../../lib/errors';
import { rateLimitHeaders } from '../../lib/ratelimit/index';
import type { InboundChannelRow, InboundKind } from '../../schema/forms/db';
import { PropertyFinderEvent, SignedLeadEnvelope, WhatsAppNotification } from '../../schema/forms/inbound';
import type { Company } from '../../schema/platform/db';
import { type InboundParsed, storable } from './inbound-lead';
import { recordLead } from './lead-record';
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

/** The channel of `token` for `kind` (404 otherwise: an unknown, rotated or another kind's token). */
export async function channelByToken(db: Executor, companyId: string, kind: InboundKind, token: string) {
  const channel = await db
    .selectFrom('inbound_channels')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('token_hash', '=', await sha256(token))
    .executeTakeFirst();
  if (!channel || channel.kind !== kind) throw notFound('This inbound address');
  return channel;
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
    )
    insert into audit_log (company_id, actor, action, subject, details)
    select company_id, 'system', 'inbound.verification_failed', id::text,
      jsonb_build_object('kind', kind, 'source', source, 'failures', failures, 'since', since, 'last_reason', ${reason}::text)
    from judged where audit`.execute(services.db);
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

/** The JSON of a verified body (400 `invalid_json` when it is not), read by the source's schema (400 otherwise). */
function payloadOf<T>(
  body: Uint8Array,
  schema: { safeParse: (v: unknown) => { success: true; data: T } | { success: false } },
): T {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new ApiError('invalid_json', 'The body is not JSON.');
  }
  const parsed = schema.safeParse(storable(value));
  if (!parsed.success) throw new ApiError('invalid_request', 'The body is not in the source’s published shape.');
  return parsed.data;
}

/** The enquiries of a verified delivery, read as its source publishes them. */
function deliveryOf(company: Company, channel: InboundChannelRow, body: Uint8Array, headers: Headers, now: Date): InboundParsed {
  switch (channel.kind) {
    case 'whatsapp': {
      const hours = company.settings.inbound_conversation_hours ?? defaultConversationHours;
      return whatsAppLeads(payloadOf(body, WhatsAppNotification), channel.source, hours, now);
    }
    case 'propertyfinder':
      return propertyFinderLeads(payloadOf(body, PropertyFinderEvent), channel.source, now);
    case 'signed':
      return signedLeads(payloadOf(body, SignedLeadEnvelope), headers.get('webhook-id') ?? '', channel.source, now);
  }
}

export type InboundReceiptValue = { recorded: number; repeated: number; ignored: number; leads: string[]; dropped?: string[] };

/**
 * Receives one delivery to `/inbound/{token}/{kind}`: verified, read, and every enquiry in it recorded (each in one
 * statement: a failure after some were recorded answers 500, and the source's retry records the rest, the recorded
 * ones being repeats).
 */
export async function receiveInbound(
  services: Services,
  company: Company,
  kind: InboundKind,
  token: string,
  request: { body: Uint8Array; headers: Headers },
): Promise<InboundReceiptValue> {
  const now = services.now();
  const channel = await channelByToken(services.db, company.id, kind, token);
  const keyring = keyringOf(services.config);
  const secret = await openSecret(keyring, channel.secret_jwe, channel.id);
  const failure = await signatureFailure(kind, request.body, request.headers, secret);
  if (failure) await refuse(services, channel, failure, now);
  const parsed = deliveryOf(company, channel, request.body, request.headers, now);
  const receipt: InboundReceiptValue = { recorded: 0, repeated: 0, ignored: parsed.ignored, leads: [] };
  for (const lead of parsed.leads) {
    const details = lead.details && Object.keys(lead.details).length > 0 ? await encryptJson(keyring, lead.details) : null;
    const fields = { ...lead.fields, detailsJwe: details, consent: null };
    const row = await recordLead(services.db, company, fields, lead.origin, `inbound:${channel.source}`, now);
    if (row.repeated) receipt.repeated++;
    else receipt.recorded++;
    if (!receipt.leads.includes(row.reference)) receipt.leads.push(row.reference);
  }
  if (parsed.dropped.length > 0) receipt.dropped = parsed.dropped;
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
  const channel = await channelByToken(services.db, company.id, 'whatsapp', token);
  const expected = await openSecret(keyringOf(services.config), channel.verify_token_jwe ?? '', channel.id);
  // Both hashed first, so the comparison takes the same time whatever the lengths.
  const matches = timingSafeEqual(await sha256(query.verifyToken ?? ''), await sha256(expected));
  if (query.mode !== 'subscribe' || !matches || !query.challenge) {
    await refuse(services, channel, 'The verification request does not carry this channel’s verify token.', now);
  }
  return query.challenge as string;
}

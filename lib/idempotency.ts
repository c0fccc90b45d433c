import canonicalize from 'canonicalize';
import type { Context, MiddlewareHandler } from 'hono';
import { type ExpressionBuilder, sql } from 'kysely';
import { base64url } from 'jose';
import { sha256 } from './crypto';
import { decryptJson, encryptJson, keyringOf } from './crypto-jwe';
import type { Db, Executor } from './db/index';
import type { AppEnv, Caller } from './env';
import { ApiError, type ProblemCode } from './errors';
import type { Database } from '../schema/db';

/**
 * Safe retries (the IETF draft's `Idempotency-Key`, with Stripe's semantics): the first answer to a POST or PATCH
 * is kept per company, caller, route and key for 24 hours and replayed for the same key and the same body, with
 * `Idempotent-Replayed: true`. The same key with another body is 422; while the first request is still running,
 * 409. Concurrent identical requests therefore have one effect: only the request that claimed the key runs.
 */
export const idempotencyHours = 24;
/** A claim older than this whose request never finished (the process died) may be taken over by a retry. */
export const abandonedClaimSeconds = 60;

const keyPattern = /^[\x21-\x7e]{1,255}$/;

/**
 * Answers that say the request never ran, or that a retry could change: not kept, so the client can fix the
 * request (or wait) and retry with the same key. Every other answer below 500 is kept and replayed.
 */
const notKept = new Set<ProblemCode>([
  'invalid_request',
  'invalid_json',
  'unsupported_media_type',
  'payload_too_large',
  'rate_limited',
  'precondition_failed',
  'encryption_unavailable',
  'spam_check_unavailable',
]);

/** Stored bodies say how they are kept: encrypted (a details key is configured) or as sent. */
const jwePrefix = 'jwe:';
const plainPrefix = 'raw:';

type Claim = { company_id: string; caller: string; route: string; key: string };

function callerId(caller: Caller): string {
  return caller.kind === 'server' || caller.kind === 'publishable' ? caller.key.id : caller.kind;
}

/** The body's fingerprint: JSON compared by value (key order and spacing do not matter), anything else as sent. */
async function requestHash(text: string): Promise<string> {
  let canonical = text;
  try {
    canonical = `json:${canonicalize(JSON.parse(text)) ?? ''}`;
  } catch {
    canonical = `text:${text}`;
  }
  return base64url.encode(await sha256(canonical));
}

const where = (claim: Claim) => (eb: ExpressionBuilder<Database, 'idempotency_keys'>) =>
  eb.and({ company_id: claim.company_id, caller: claim.caller, route: claim.route, key: claim.key });

/** Claims the key for this request, or returns the row of the request that holds it (or held it). */
async function claim(db: Db, key: Claim, hash: string) {
  for (;;) {
    const inserted = await db
      .insertInto('idempotency_keys')
      .values({ ...key, request_hash: hash })
      .onConflict((oc) => oc.columns(['company_id', 'caller', 'route', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst();
    if (inserted) return undefined;
    const held = await db
      .selectFrom('idempotency_keys')
      .select(['request_hash', 'status_code', 'content_type', 'etag', 'body'])
      .select([
        sql<boolean>`created_at <= clock_timestamp() - make_interval(hours => ${idempotencyHours})`.as('expired'),
        sql<boolean>`locked_at <= clock_timestamp() - make_interval(secs => ${abandonedClaimSeconds})`.as('abandoned'),
      ])
      .where(where(key))
      .executeTakeFirst();
    if (!held) continue;
    if (held.expired) {
      // Past its 24 hours: the key is free again.
      await db
        .deleteFrom('idempotency_keys')
        .where(where(key))
        .where('created_at', '<=', sql<Date>`clock_timestamp() - make_interval(hours => ${idempotencyHours})`)
        .execute();
      continue;
    }
    if (held.status_code === null && held.abandoned && held.request_hash === hash) {
      const taken = await db
        .updateTable('idempotency_keys')
        .set({ locked_at: sql<Date>`clock_timestamp()` })
        .where(where(key))
        .where('status_code', 'is', null)
        .where('locked_at', '<=', sql<Date>`clock_timestamp() - make_interval(secs => ${abandonedClaimSeconds})`)
        .returning('key')
        .executeTakeFirst();
      if (taken) return undefined;
      continue;
    }
    return held;
  }
}

async function replay(c: Context<AppEnv>, held: NonNullable<Awaited<ReturnType<typeof claim>>>, hash: string) {
  if (held.request_hash !== hash) {
    throw new ApiError(
      'idempotency_key_reused',
      'This Idempotency-Key was used with another request body; use a new key for a new request.',
    );
  }
  if (held.status_code === null) {
    throw new ApiError('idempotency_in_flight', 'A request with this Idempotency-Key is still running; retry shortly.', {
      headers: { 'Retry-After': '1' },
    });
  }
  const stored = held.body ?? '';
  const body = stored.startsWith(jwePrefix)
    ? String(await decryptJson(keyringOf(c.var.services.config), stored.slice(jwePrefix.length)))
    : stored.slice(plainPrefix.length);
  const headers: Record<string, string> = { 'Idempotent-Replayed': 'true' };
  if (held.content_type) headers['Content-Type'] = held.content_type;
  if (held.etag) headers.ETag = held.etag;
  return c.body(body, held.status_code as 200, headers);
}

/** Keeps the answer (the handler ran), or frees the key (it never ran, or failed on our side) for a retry. */
async function settle(c: Context<AppEnv>, key: Claim): Promise<void> {
  const { db, config } = c.var.services;
  const code = c.error instanceof ApiError ? c.error.code : undefined;
  if (c.res.status >= 500 || (code !== undefined && notKept.has(code))) {
    await db.deleteFrom('idempotency_keys').where(where(key)).execute();
    return;
  }
  const text = await c.res.clone().text();
  const keyring = keyringOf(config);
  await db
    .updateTable('idempotency_keys')
    .set({
      status_code: c.res.status,
      content_type: c.res.headers.get('Content-Type'),
      etag: c.res.headers.get('ETag'),
      body: keyring ? jwePrefix + (await encryptJson(keyring, text)) : plainPrefix + text,
    })
    .where(where(key))
    .execute();
}

/** The middleware of every POST and PATCH of the public API; runs once the caller and company are known. */
export function idempotency(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const value = c.req.header('Idempotency-Key');
    if (value === undefined) return next();
    if (!keyPattern.test(value)) {
      throw new ApiError('invalid_request', 'The Idempotency-Key header is invalid.', {
        errors: [
          {
            path: 'Idempotency-Key',
            code: 'invalid_string',
            message: 'An Idempotency-Key is 1 to 255 visible ASCII characters; a random UUID is best.',
          },
        ],
      });
    }
    const key: Claim = {
      company_id: c.var.company.id,
      caller: callerId(c.var.caller),
      route: `${c.req.method} ${c.req.path}`,
      key: value,
    };
    const hash = await requestHash(await c.req.text());
    const held = await claim(c.var.services.db, key, hash);
    if (held) return replay(c, held, hash);
    try {
      await next();
    } catch (error) {
      await c.var.services.db.deleteFrom('idempotency_keys').where(where(key)).execute();
      throw error;
    }
    await settle(c, key);
  };
}

/**
 * Erasure of a person: the company's kept answers may repeat what was sent about them, and their encrypted bodies
 * cannot be searched, so every kept answer of the company goes (claims of requests in flight stay). A retry of an
 * earlier write after an erasure therefore runs again instead of replaying.
 */
export async function forgetKeptAnswers(executor: Executor, companyId: string): Promise<void> {
  await executor
    .deleteFrom('idempotency_keys')
    .where('company_id', '=', companyId)
    .where('status_code', 'is not', null)
    .execute();
}

/** Scheduled work: answers past their 24 hours are deleted (they are never replayed after that anyway). */
export async function deleteExpiredIdempotencyKeys(db: Db): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<=', sql<Date>`clock_timestamp() - make_interval(hours => ${idempotencyHours})`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

import type { ApiKeyRow } from '../schema/platform/db';
import { randomToken, sha256, timingSafeEqual } from './crypto';
import type { Db, Executor, Trx } from './db/index';
import { ApiError } from './errors';
import { writeAudit } from './audit';
import type { Scope } from '../schema/common/scopes';
import { iso } from './dates';
import type { CompanyCache } from './company-cache';

export type KeyKind = 'server' | 'publishable';

const kindPrefix = { server: 'sk_', publishable: 'pk_' } as const;
const keyPattern = /^(sk|pk)_([A-Za-z0-9]{10})([A-Za-z0-9]{32})$/;
/** How long the previous secret keeps working after a rotation. */
export const rotationGraceMs = 24 * 60 * 60 * 1000;

/** A key is `sk_` or `pk_`, then a 10-character public id (its display prefix), then a 32-character secret. */
export function parseKey(text: string): { kind: KeyKind; prefix: string } | null {
  const match = keyPattern.exec(text);
  if (!match) return null;
  return { kind: match[1] === 'sk' ? 'server' : 'publishable', prefix: `${match[1]}_${match[2]}` };
}

function newSecret(prefix: string): string {
  return prefix + randomToken(32);
}

/** A key with the hashes of its secrets that were unexpired when it was read. */
type KeyWithSecrets = { key: ApiKeyRow; secrets: Array<{ hash: Uint8Array; expiresAt: Date | null }> };

async function keyByPrefix(db: Executor, prefix: string, now: Date): Promise<KeyWithSecrets | undefined> {
  const rows = await db
    .selectFrom('api_keys as k')
    .innerJoin('api_key_secrets as s', 's.key_id', 'k.id')
    .selectAll('k')
    .select(['s.secret_hash', 's.expires_at'])
    .where('k.prefix', '=', prefix)
    .where((eb) => eb.or([eb('s.expires_at', 'is', null), eb('s.expires_at', '>', now)]))
    .execute();
  const first = rows[0];
  if (!first) return undefined;
  const { secret_hash: _hash, expires_at: _expires, ...key } = first;
  return { key, secrets: rows.map((row) => ({ hash: new Uint8Array(row.secret_hash), expiresAt: row.expires_at })) };
}

/**
 * Finds the key a presented secret belongs to. Only SHA-256 hashes are stored; every unexpired secret of
 * the key is compared in constant time. Unknown, malformed and expired secrets are all "unknown".
 * With `cache` (Node: lib/company-cache.ts, kept until the database announces a change to the key or its
 * secrets), the key and its hashes come from memory; a secret's expiry is still checked against `now`.
 */
export async function verifyKey(
  db: Executor,
  presented: string,
  options: { cache?: CompanyCache; now?: Date } = {},
): Promise<ApiKeyRow> {
  const parsed = parseKey(presented);
  if (!parsed) throw new ApiError('key_invalid', 'The key is not a valid API key.');
  const now = options.now ?? new Date();
  const load = async (prefix: string) => {
    const found = await keyByPrefix(db, prefix, now);
    return found && { companyId: found.key.company_id, value: found };
  };
  const stored = options.cache ? await options.cache.lookupKey(parsed.prefix, load) : (await load(parsed.prefix))?.value;
  const digest = await sha256(presented);
  let matched = false;
  for (const { hash, expiresAt } of stored?.secrets ?? []) {
    if (timingSafeEqual(hash, digest) && (expiresAt === null || expiresAt > now)) matched = true;
  }
  if (!stored || !matched) throw new ApiError('key_invalid', 'The key is unknown.');
  if (stored.key.revoked_at) throw new ApiError('key_revoked', 'The key has been revoked.');
  return stored.key;
}

/**
 * Records use at most once a minute per key, so a busy key does not write on every request. The row is marked
 * too: a key kept in memory is then written at most once a minute by this process (not on every request).
 */
export async function touchKey(db: Db, key: ApiKeyRow, now = new Date()): Promise<void> {
  if (key.last_used_at && now.getTime() - new Date(key.last_used_at).getTime() < 60_000) return;
  key.last_used_at = now;
  await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', key.id).execute();
}

export type NewKeyInput = {
  kind: KeyKind;
  name?: string;
  scopes?: Scope[];
  origins?: string[];
  leadTypes?: string[];
};

/** Creates a key; the secret is returned once and only its hash is stored. */
export async function createKey(
  trx: Trx,
  companyId: string,
  input: NewKeyInput,
  actor: string,
): Promise<{ key: ApiKeyRow; secret: string }> {
  const prefix = kindPrefix[input.kind] + randomToken(10);
  const key = await trx
    .insertInto('api_keys')
    .values({
      company_id: companyId,
      kind: input.kind,
      prefix,
      name: input.name ?? '',
      scopes: input.kind === 'server' ? (input.scopes ?? []) : [],
      origins: input.kind === 'publishable' ? (input.origins ?? []) : [],
      lead_types: input.kind === 'publishable' ? [...new Set(input.leadTypes ?? ['enquiry'])] : [],
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const secret = newSecret(prefix);
  await trx
    .insertInto('api_key_secrets')
    .values({ key_id: key.id, secret_hash: await sha256(secret) })
    .execute();
  await writeAudit(trx, {
    companyId,
    actor,
    action: 'key.created',
    subject: prefix,
    details: { kind: key.kind, scopes: key.scopes, origins: key.origins, lead_types: key.lead_types },
  });
  return { key, secret };
}

/** Issues a new secret; the previous ones keep working for 24 hours. */
export async function rotateKey(
  trx: Trx,
  key: ApiKeyRow,
  actor: string,
  now = new Date(),
): Promise<{ secret: string; previousExpiresAt: Date }> {
  if (key.revoked_at) throw new ApiError('conflict', 'A revoked key cannot be rotated.');
  const previousExpiresAt = new Date(now.getTime() + rotationGraceMs);
  await trx
    .updateTable('api_key_secrets')
    .set({ expires_at: previousExpiresAt })
    .where('key_id', '=', key.id)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', previousExpiresAt)]))
    .execute();
  const secret = newSecret(key.prefix);
  await trx
    .insertInto('api_key_secrets')
    .values({ key_id: key.id, secret_hash: await sha256(secret) })
    .execute();
  await writeAudit(trx, {
    companyId: key.company_id,
    actor,
    action: 'key.rotated',
    subject: key.prefix,
    details: { previous_secret_expires_at: iso(previousExpiresAt) },
  });
  return { secret, previousExpiresAt };
}

/** Revocation is immediate: every secret of the key stops working at once. */
export async function revokeKey(trx: Trx, key: ApiKeyRow, actor: string): Promise<ApiKeyRow> {
  if (key.revoked_at) return key;
  const revoked = await trx
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('id', '=', key.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await writeAudit(trx, { companyId: key.company_id, actor, action: 'key.revoked', subject: key.prefix });
  return revoked;
}

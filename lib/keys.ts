import type { ApiKeyRow, Company } from '../schema/platform/db';
import { randomToken, sha256, timingSafeEqual } from './crypto';
import type { Db, Executor, Trx } from './db/index';
import { ApiError } from './errors';
import { writeAudit } from './audit';
import type { Scope } from '../schema/common/scopes';
import { iso } from './dates';
import type { CompanyCache } from './company-cache';
import type { KeyRead, KeyWithSecrets } from './env';

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

type KeyRow = ApiKeyRow & { secret_hash: Uint8Array; expires_at: Date | null };

function keyOf(rows: readonly KeyRow[]): KeyWithSecrets | undefined {
  const first = rows[0];
  if (!first) return undefined;
  const { secret_hash: _hash, expires_at: _expires, ...key } = first;
  return { key, secrets: rows.map((row) => ({ hash: new Uint8Array(row.secret_hash), expiresAt: row.expires_at })) };
}

/** The key with `prefix` and its secrets unexpired at `now`. */
async function keyByPrefix(db: Executor, prefix: string, now: Date): Promise<KeyWithSecrets | undefined> {
  const rows = await db
    .selectFrom('api_keys as k')
    .innerJoin('api_key_secrets as s', 's.key_id', 'k.id')
    .selectAll('k')
    .select(['s.secret_hash', 's.expires_at'])
    .where('k.prefix', '=', prefix)
    .where((eb) => eb.or([eb('s.expires_at', 'is', null), eb('s.expires_at', '>', now)]))
    .execute();
  return keyOf(rows);
}

/**
 * The company that owns `host` and the key with `prefix` (whichever company's: the access check tells), in one
 * statement: where neither is kept in memory (a Worker, a cold process), a keyed request's first round trip.
 */
export async function companyAndKey(
  db: Executor,
  host: string,
  prefix: string,
  now: Date,
): Promise<{ company: Company | undefined; key: KeyWithSecrets | undefined }> {
  const rows = await db
    .selectFrom('company_hosts as h')
    .innerJoin('companies as c', 'c.id', 'h.company_id')
    .leftJoin(
      (eb) =>
        eb
          .selectFrom('api_keys as k')
          .innerJoin('api_key_secrets as s', 's.key_id', 'k.id')
          .select([
            'k.id as key_id',
            'k.company_id as key_company_id',
            'k.kind as key_kind',
            'k.prefix as key_prefix',
            'k.name as key_name',
            'k.scopes as key_scopes',
            'k.origins as key_origins',
            'k.lead_types as key_lead_types',
            'k.created_at as key_created_at',
            'k.revoked_at as key_revoked_at',
            'k.last_used_at as key_last_used_at',
            's.secret_hash as key_secret_hash',
            's.expires_at as key_expires_at',
          ])
          .where('k.prefix', '=', prefix)
          .where((eb) => eb.or([eb('s.expires_at', 'is', null), eb('s.expires_at', '>', now)]))
          .as('kk'),
      (join) => join.onTrue(),
    )
    .selectAll('c')
    .selectAll('kk')
    .where('h.host', '=', host)
    .execute();
  const keyed: KeyRow[] = [];
  let company: Company | undefined;
  for (const row of rows) {
    const {
      key_id,
      key_company_id,
      key_kind,
      key_prefix,
      key_name,
      key_scopes,
      key_origins,
      key_lead_types,
      key_created_at,
      key_revoked_at,
      key_last_used_at,
      key_secret_hash,
      key_expires_at,
      ...companyRow
    } = row;
    company ??= companyRow;
    if (key_id === null) continue;
    keyed.push({
      id: key_id,
      company_id: key_company_id as string,
      kind: key_kind as ApiKeyRow['kind'],
      prefix: key_prefix as string,
      name: key_name as string,
      scopes: key_scopes as string[],
      origins: key_origins as string[],
      lead_types: key_lead_types as string[],
      created_at: key_created_at as Date,
      revoked_at: key_revoked_at,
      last_used_at: key_last_used_at,
      secret_hash: key_secret_hash as Uint8Array,
      expires_at: key_expires_at,
    });
  }
  return { company, key: keyOf(keyed) };
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
  options: { now: Date; cache?: CompanyCache; read?: KeyRead },
): Promise<ApiKeyRow> {
  const parsed = parseKey(presented);
  if (!parsed) throw new ApiError('key_invalid', 'The key is not a valid API key.');
  const now = options.now;
  const load = async (prefix: string) => {
    const found = await keyByPrefix(db, prefix, now);
    return found && { companyId: found.key.company_id, value: found };
  };
  // A key read with the company in this request is used as read, and kept only if no change was announced since
  // that read began (its generation), as the cache's own reads are.
  const read = options.read?.prefix === parsed.prefix ? options.read : undefined;
  if (read && options.cache && read.key) {
    options.cache.keepKey(parsed.prefix, { companyId: read.key.key.company_id, value: read.key }, read.generation);
  }
  const stored = read
    ? read.key
    : options.cache
      ? await options.cache.lookupKey(parsed.prefix, load)
      : (await load(parsed.prefix))?.value;
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
export async function touchKey(db: Db, key: ApiKeyRow, now: Date): Promise<void> {
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
  now: Date,
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
export async function revokeKey(trx: Trx, key: ApiKeyRow, actor: string, now: Date): Promise<ApiKeyRow> {
  if (key.revoked_at) return key;
  const revoked = await trx
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', key.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await writeAudit(trx, { companyId: key.company_id, actor, action: 'key.revoked', subject: key.prefix });
  return revoked;
}

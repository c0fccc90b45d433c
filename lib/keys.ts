import type { ApiKeyRow, Company } from '../schema/platform/db';
import { randomToken, sha256, timingSafeEqual } from './crypto';
import type { Db, Executor } from './db/index';
import { sql } from 'kysely';
import { isLocalOrigin } from './addresses';
import { auditCte } from './audit';
import { ApiError, notFound } from './errors';
import type { Scope } from '../schema/common/scopes';
import { iso } from './dates';
import type { CompanyCache } from './company-cache';
import type { KeyRead, KeyWithSecrets } from './env';
import { currentVersion, isApiVersion, unknownVersion } from './versions';

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
            'k.api_version as key_api_version',
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
      key_api_version,
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
      api_version: key_api_version as string,
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

/**
 * Creates a key of the company in one statement with its first secret (only its hash is stored) and its audit row; the
 * secret is returned once. Origins on this machine or in a private network are taken on a development workspace only
 * (400); an unknown company is 404.
 */
export async function createKey(
  db: Executor,
  companyId: string,
  input: NewKeyInput,
  actor: string,
): Promise<{ key: ApiKeyRow; secret: string }> {
  const prefix = kindPrefix[input.kind] + randomToken(10);
  const secret = newSecret(prefix);
  const scopes = input.kind === 'server' ? (input.scopes ?? []) : [];
  const origins = input.kind === 'publishable' ? (input.origins ?? []) : [];
  const leadTypes = input.kind === 'publishable' ? [...new Set(input.leadTypes ?? ['enquiry'])] : [];
  const local = origins.filter(isLocalOrigin);
  const details = { kind: input.kind, scopes, origins, lead_types: leadTypes, api_version: currentVersion };
  const { rows } = await sql<Partial<ApiKeyRow> & { environment: Company['environment'] }>`
    with company as (select id, environment from companies where id = ${companyId}),
    changed as (
      insert into api_keys (company_id, kind, prefix, name, scopes, origins, lead_types, api_version)
      select id, ${input.kind}, ${prefix}, ${input.name ?? ''}, ${scopes}::text[], ${origins}::text[], ${leadTypes}::text[],
        ${currentVersion}
      from company where ${local.length === 0} or environment = 'development'
      returning *
    ),
    secret as (insert into api_key_secrets (key_id, secret_hash) select id, ${await sha256(secret)}::bytea from changed),
    ${auditCte('audited', 'changed', { actor, action: 'key.created', subject: 'prefix', details })}
    select changed.*, company.environment from company left join changed on true`.execute(db);
  const row = rows[0];
  if (!row) throw notFound(`The company ${companyId}`);
  if (!row.id) {
    throw new ApiError(
      'invalid_request',
      'Origins on this machine or in a private network are accepted only on development workspaces.',
      {
        errors: local.map((o) => ({
          path: 'origins',
          code: 'local_origin',
          message: `${o} is on this machine or in a private network.`,
        })),
      },
    );
  }
  const { environment: _environment, ...key } = row;
  return { key: key as ApiKeyRow, secret };
}

/** The key of the company with this prefix as a write statement's first CTE `key` (its bare row). */
const keyCte = (companyId: string, prefix: string) =>
  sql`key as (select * from api_keys where company_id = ${companyId} and prefix = ${prefix})`;

/**
 * Issues a new secret in one statement with its audit row; the previous ones keep working for 24 hours after `now`.
 * 404 for no such key of the company, 409 for a revoked one.
 */
export async function rotateKey(
  db: Executor,
  companyId: string,
  prefix: string,
  actor: string,
  now: Date,
): Promise<{ key: ApiKeyRow; secret: string; previousExpiresAt: Date }> {
  const previousExpiresAt = new Date(now.getTime() + rotationGraceMs);
  const secret = newSecret(prefix);
  const { rows } = await sql<ApiKeyRow>`
    with ${keyCte(companyId, prefix)},
    changed as (select * from key where revoked_at is null),
    expiring as (
      update api_key_secrets set expires_at = ${previousExpiresAt}
      where key_id = (select id from changed) and (expires_at is null or expires_at > ${previousExpiresAt})
    ),
    secret as (insert into api_key_secrets (key_id, secret_hash) select id, ${await sha256(secret)}::bytea from changed),
    ${auditCte('audited', 'changed', { actor, action: 'key.rotated', subject: 'prefix', details: { previous_secret_expires_at: iso(previousExpiresAt) } })}
    select * from key`.execute(db);
  const key = rows[0];
  if (!key) throw notFound(`The key ${prefix}`);
  if (key.revoked_at) throw new ApiError('conflict', 'A revoked key cannot be rotated.');
  return { key, secret, previousExpiresAt };
}

/** Revocation is immediate (every secret of the key stops working at once), in one statement with its audit row. */
export async function revokeKey(db: Executor, companyId: string, prefix: string, actor: string, now: Date): Promise<ApiKeyRow> {
  const { rows } = await sql<ApiKeyRow & { revoked_now: Date | null }>`
    with ${keyCte(companyId, prefix)},
    changed as (update api_keys set revoked_at = ${now} where id = (select id from key) and revoked_at is null returning *),
    ${auditCte('audited', 'changed', { actor, action: 'key.revoked', subject: 'prefix' })}
    select key.*, changed.revoked_at as revoked_now from key left join changed on true`.execute(db);
  const row = rows[0];
  if (!row) throw notFound(`The key ${prefix}`);
  const { revoked_now, ...key } = row;
  // A key revoked before keeps its first revocation time.
  return { ...key, revoked_at: key.revoked_at ?? revoked_now };
}

/**
 * Pins the key to another API version (lib/versions.ts; an unknown one is a 400 at `api_version`), in one statement
 * with its audit row naming the previous and the new version. A revoked key may be pinned too (it changes nothing).
 */
export async function pinKeyVersion(
  db: Executor,
  companyId: string,
  prefix: string,
  version: string,
  actor: string,
): Promise<ApiKeyRow> {
  if (!isApiVersion(version)) throw unknownVersion('api_version', version);
  const { rows } = await sql<ApiKeyRow & { previous_version: string }>`
    with ${keyCte(companyId, prefix)},
    changed as (
      update api_keys set api_version = ${version} where id = (select id from key) returning *,
        (select api_version from key) as previous_version
    ),
    ${auditCte('audited', 'changed', { actor, action: 'key.version_pinned', subject: 'prefix', details: { api_version: version }, columns: ['previous_version'] })}
    select * from changed`.execute(db);
  const row = rows[0];
  if (!row) throw notFound(`The key ${prefix}`);
  const { previous_version: _previous, ...key } = row;
  return key;
}

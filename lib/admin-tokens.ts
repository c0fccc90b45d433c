import { sql } from 'kysely';
import { randomToken, sha256 } from './crypto';
import type { Db, Executor } from './db/index';

/**
 * The platform operator's admin tokens. Only a token's SHA-256 is stored, so a token is shown once, when it is
 * made: by the Node server (into DATA_DIR/admin-token) or by `npm run migrate` against DATABASE_URL, the way a
 * Workers + Neon deployment gets its first one (docs/deploy.md).
 */
export const newAdminToken = (): string => `adm_${randomToken(40)}`;

/**
 * The shortest admin token taken from the operator (ADMIN_TOKEN, DATA_DIR/admin-token): a generated one has 44
 * characters. The token opens every company's data, so `ADMIN_TOKEN=changeme` is refused, not registered.
 */
export const adminTokenMinLength = 32;

/** Adds a token's hash; adding one that is already there changes nothing. A token under 32 characters throws. */
export async function registerAdminToken(db: Executor, token: string): Promise<void> {
  if (token.length < adminTokenMinLength) {
    throw new Error(
      `The admin token (ADMIN_TOKEN) has ${token.length} characters; it needs at least ${adminTokenMinLength} random ones. Leave ADMIN_TOKEN unset to have one generated, or use one printed by \`npm run migrate -- --new-admin-token\`.`,
    );
  }
  await db
    .insertInto('admin_tokens')
    .values({ token_hash: await sha256(token) })
    .onConflict((oc) => oc.column('token_hash').doNothing())
    .execute();
}

/**
 * A new admin token when the database has none (or always, with `always`), to be shown once; otherwise
 * `token` is undefined and `existing` says how many there are. Two runs at once make one token between them:
 * the table is locked against concurrent inserts while it is counted.
 */
export async function issueAdminToken(db: Db, options: { always?: boolean } = {}): Promise<{ token?: string; existing: number }> {
  return db.transaction().execute(async (trx) => {
    await sql`lock table admin_tokens in share row exclusive mode`.execute(trx);
    const row = await trx
      .selectFrom('admin_tokens')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .executeTakeFirstOrThrow();
    const existing = Number(row.count);
    if (existing > 0 && !options.always) return { existing };
    const token = newAdminToken();
    await registerAdminToken(trx, token);
    return { token, existing };
  });
}

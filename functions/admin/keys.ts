import type { z } from '@hono/zod-openapi';
import { findCompany } from '../../lib/admin-route';
import type { Db, Executor } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { createKey, revokeKey, rotateKey } from '../../lib/keys';
import { isLocalOrigin } from '../../lib/tenancy';
import type { CreateKeyInput } from '../../schema/platform/admin';
import type { ApiKeyRow } from '../../schema/platform/db';

/** The key of the company with this prefix (404 when there is none). */
async function findKey(db: Executor, companyId: string, prefix: string): Promise<ApiKeyRow> {
  const key = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('prefix', '=', prefix)
    .executeTakeFirst();
  if (!key) throw notFound(`The key ${prefix}`);
  return key;
}

/** The company's keys, oldest first (404 when there is no such company). */
export async function keysOf(db: Db, companyId: string): Promise<ApiKeyRow[]> {
  await findCompany(db, companyId);
  return db.selectFrom('api_keys').selectAll().where('company_id', '=', companyId).orderBy('created_at').execute();
}

/** A new key of the company; origins on this machine or a private network only on a development workspace (400). */
export async function addKey(db: Db, companyId: string, input: z.infer<typeof CreateKeyInput>) {
  return db.transaction().execute(async (trx) => {
    const company = await findCompany(trx, companyId);
    const local = input.origins.filter(isLocalOrigin);
    if (company.environment !== 'development' && local.length > 0) {
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
    return createKey(trx, companyId, { ...input, leadTypes: input.lead_types }, 'admin');
  });
}

/** A new secret for the key; the previous one works 24 hours after `now`. */
export async function rotateCompanyKey(db: Db, companyId: string, prefix: string, now: Date) {
  return db.transaction().execute(async (trx) => {
    const key = await findKey(trx, companyId, prefix);
    return { key, result: await rotateKey(trx, key, 'admin', now) };
  });
}

/** The key revoked at `now` (a revoked key stays as it was). */
export async function revokeCompanyKey(db: Db, companyId: string, prefix: string, now: Date): Promise<ApiKeyRow> {
  return db.transaction().execute(async (trx) => revokeKey(trx, await findKey(trx, companyId, prefix), 'admin', now));
}

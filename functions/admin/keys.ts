import type { z } from '@hono/zod-openapi';
import { findCompany } from '../../lib/admin-route';
import type { Db } from '../../lib/db/index';
import { createKey, pinKeyVersion, revokeKey, rotateKey } from '../../lib/keys';
import type { CreateKeyInput } from '../../schema/platform/admin';
import type { ApiKeyRow } from '../../schema/platform/db';

/** The company's keys, oldest first (404 when there is no such company). */
export async function keysOf(db: Db, companyId: string): Promise<ApiKeyRow[]> {
  await findCompany(db, companyId);
  return db.selectFrom('api_keys').selectAll().where('company_id', '=', companyId).orderBy('created_at').execute();
}

/** A new key of the company, in one statement (lib/keys.ts: local origins on a development workspace only). */
export function addKey(db: Db, companyId: string, input: z.infer<typeof CreateKeyInput>) {
  return createKey(db, companyId, { ...input, leadTypes: input.lead_types }, 'admin');
}

/** A new secret for the key; the previous one works 24 hours after `now`. */
export function rotateCompanyKey(db: Db, companyId: string, prefix: string, now: Date) {
  return rotateKey(db, companyId, prefix, 'admin', now);
}

/** The key revoked at `now` (a revoked key stays as it was). */
export function revokeCompanyKey(db: Db, companyId: string, prefix: string, now: Date): Promise<ApiKeyRow> {
  return revokeKey(db, companyId, prefix, 'admin', now);
}

/** The key pinned to another API version (lib/versions.ts). */
export function pinCompanyKeyVersion(db: Db, companyId: string, prefix: string, version: string): Promise<ApiKeyRow> {
  return pinKeyVersion(db, companyId, prefix, version, 'admin');
}

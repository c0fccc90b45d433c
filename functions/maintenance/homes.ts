import { sql } from 'kysely';
import type { Db, Executor } from '../../lib/db/index';
import { notFound } from '../../lib/errors';
import { amountIn, amountOut } from '../../lib/money';
import { unknownReference } from '../../lib/named-records';
import type { HomeMaintenanceInput } from '../../schema/maintenance/homes';
import type { z } from '@hono/zod-openapi';

/** A home's maintenance settings as the admin API shows them. */
export type HomeSettings = { home: string; owner: string | null; approval_limit: string | null };

type SettingsRead = {
  currency: string;
  listing_id: string | null;
  owner: string | null;
  approval_limit: string | null;
  named_owner_id: string | null;
};

/** The company, the home and its settings, and the owner a body names (erased people are not owners), in one statement. */
async function readSettings(db: Executor, companyId: string, slug: string, owner: string | null): Promise<SettingsRead> {
  const { rows } = await sql<SettingsRead>`
    select c.currency, l.id as listing_id, current_owner.reference as owner, m.approval_limit::text as approval_limit,
      named.id as named_owner_id
    from companies c
    left join listings l on l.company_id = c.id and l.slug_en = ${slug}
    left join maintenance_homes m on m.listing_id = l.id
    left join contacts current_owner on current_owner.id = m.owner_id
    left join contacts named on named.company_id = c.id and named.reference = ${owner}::text and not named.erased
    where c.id = ${companyId}::uuid
  `.execute(db);
  const read = rows[0];
  if (!read) throw notFound(`The company ${companyId}`);
  if (read.listing_id === null) throw unknownReference('slug', `${slug} is not a listing of this company.`);
  return read;
}

/** A home's owner and the owner's approval limit (admin GET). */
export async function homeSettings(db: Executor, companyId: string, slug: string): Promise<HomeSettings> {
  const read = await readSettings(db, companyId, slug, null);
  return { home: slug, owner: read.owner, approval_limit: amountOut(read.approval_limit, read.currency) };
}

/**
 * Sets a home's owner and the owner's approval limit (fields not sent are kept), in two statements: the read (company,
 * home, settings, the owner named), then the upsert returning what it stored.
 */
export async function putHomeSettings(
  db: Db,
  companyId: string,
  slug: string,
  input: z.infer<typeof HomeMaintenanceInput>,
): Promise<HomeSettings> {
  const read = await readSettings(db, companyId, slug, input.owner ?? null);
  const set: { owner_id?: string | null; approval_limit?: string | null } = {};
  if (input.owner !== undefined) {
    if (input.owner !== null && read.named_owner_id === null) {
      throw unknownReference('owner', `${input.owner} is not a contact.`);
    }
    set.owner_id = read.named_owner_id;
  }
  if (input.approval_limit !== undefined) {
    set.approval_limit = input.approval_limit === null ? null : amountIn(input.approval_limit, read.currency, 'approval_limit');
  }
  if (Object.keys(set).length === 0)
    return { home: slug, owner: read.owner, approval_limit: amountOut(read.approval_limit, read.currency) };
  const stored = await db
    .insertInto('maintenance_homes')
    .values({ listing_id: read.listing_id as string, company_id: companyId, ...set })
    .onConflict((oc) => oc.column('listing_id').doUpdateSet(set))
    .returning([sql<string | null>`approval_limit::text`.as('approval_limit')])
    .executeTakeFirstOrThrow();
  const owner = input.owner !== undefined ? input.owner : read.owner;
  return { home: slug, owner, approval_limit: amountOut(stored.approval_limit, read.currency) };
}

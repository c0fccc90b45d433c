import { z } from '@hono/zod-openapi';
import { adminRoute, companyParam, findCompany } from '../../lib/admin-route';
import { createRouter } from '../../lib/app';
import type { Executor } from '../../lib/db/index';
import { json, jsonBody, problem } from '../../schema/common/api';
import { HomeMaintenanceInput, HomeMaintenanceSchema } from '../../schema/maintenance/homes';
import { amountIn } from '../../lib/money';
import { fieldProblem, resolveListing } from '../../lib/named-records';

const params = companyParam.extend({ slug: z.string().min(1).max(200) });

const getSettings = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/listings/{slug}/maintenance',
  summary: 'A home’s maintenance settings: its owner and the owner’s approval limit',
  request: { params },
  responses: { 200: json(HomeMaintenanceSchema), 404: problem('Unknown company') },
});
const putSettings = adminRoute({
  method: 'put',
  path: '/companies/{company_id}/listings/{slug}/maintenance',
  summary: 'Set a home’s owner and the owner’s approval limit (fields not sent are kept)',
  request: { params, body: jsonBody(HomeMaintenanceInput, { approval_limit: '2000.00' }) },
  responses: { 200: json(HomeMaintenanceSchema), 404: problem('Unknown company') },
});

async function settingsOf(db: Executor, listingId: string, slug: string) {
  const row = await db
    .selectFrom('maintenance_homes as m')
    .leftJoin('contacts as owner', 'owner.id', 'm.owner_id')
    .select(['owner.reference as owner', (eb) => eb.cast<string | null>('m.approval_limit', 'text').as('approval_limit')])
    .where('m.listing_id', '=', listingId)
    .executeTakeFirst();
  return { home: slug, owner: row?.owner ?? null, approval_limit: row?.approval_limit ?? null };
}

/** The per-home maintenance settings (admin API only; the group's own Worker never bundles them). */
export const maintenanceAdmin = createRouter()
  .openapi(getSettings, async (c) => {
    const { company_id, slug } = c.req.valid('param');
    const db = c.var.services.db;
    await findCompany(db, company_id);
    const home = await resolveListing(db, company_id, slug, 'slug');
    return c.json(await settingsOf(db, home.id, slug), 200);
  })
  .openapi(putSettings, async (c) => {
    const { company_id, slug } = c.req.valid('param');
    const input = c.req.valid('json');
    const db = c.var.services.db;
    const home = await db.transaction().execute(async (trx) => {
      const company = await findCompany(trx, company_id);
      const listing = await resolveListing(trx, company_id, slug, 'slug');
      const set: { owner_id?: string | null; approval_limit?: string | null } = {};
      if (input.owner !== undefined) {
        const owner =
          input.owner === null
            ? undefined
            : await trx
                .selectFrom('contacts')
                .select('id')
                .where('company_id', '=', company_id)
                .where('reference', '=', input.owner)
                .where('erased', '=', false)
                .executeTakeFirst();
        if (input.owner !== null && !owner) throw fieldProblem('owner', 'unknown_reference', `${input.owner} is not a contact.`);
        set.owner_id = owner?.id ?? null;
      }
      if (input.approval_limit !== undefined) {
        set.approval_limit =
          input.approval_limit === null ? null : amountIn(input.approval_limit, company.currency, 'approval_limit');
      }
      await trx
        .insertInto('maintenance_homes')
        .values({ listing_id: listing.id, company_id, ...set })
        .onConflict((oc) => (Object.keys(set).length > 0 ? oc.column('listing_id').doUpdateSet(set) : oc.doNothing()))
        .execute();
      return listing;
    });
    return c.json(await settingsOf(db, home.id, slug), 200);
  });

import { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/app';
import { notFound } from '../../lib/errors';
import { localised } from '../../lib/localise';
import { CatalogueImportInput, ServiceInput, TeamProfileInput } from '../../schema/catalogue/admin';
import { findCompany } from '../../lib/admin-route';
import {
  createTeamProfile,
  type ImportProgress,
  importCatalogue,
  setListingStatus,
  updateTeamProfile,
  upsertService,
} from './content';
import { adminRoute, companyParam } from '../../lib/admin-route';
import { jsonBody } from '../../schema/common/api';
import { json } from '../../schema/common/api';
import { iso } from '../../lib/dates';
import { progressResponse, wantsProgress } from './import-progress';
import { renderContext } from './renders';
import type { Services } from '../../lib/env';

const slugParams = companyParam.extend({ slug: z.string().min(1).max(200) });
const teamParams = companyParam.extend({ profile_id: z.string().uuid() });
const serviceParams = companyParam.extend({
  key: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]*$/)
    .max(100),
});
const statusResult = z.object({ id: z.string(), slug: z.string(), status: z.string() });
const profileSchema = z.object({ id: z.string() }).passthrough();

const importRoute = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/catalogue/import',
  summary:
    'Import areas, property types, services, team and listings (upsert by slug); all or nothing. With Accept: application/x-ndjson (Node server), a line of progress per batch of 500 listings, then the result or the problem.',
  request: { params: companyParam, body: jsonBody(CatalogueImportInput) },
  responses: { 200: json(z.record(z.string(), z.number())) },
});
const statusRoute = (action: 'publish' | 'withdraw') =>
  adminRoute({
    method: 'post',
    path: `/companies/{company_id}/listings/{slug}/${action}`,
    summary: action === 'publish' ? 'Publish a listing' : 'Withdraw a listing (it stays readable as withdrawn)',
    request: { params: slugParams },
    responses: { 200: json(statusResult) },
  });
const addProfile = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/team',
  operationId: 'createCompanyTeamProfile',
  summary: 'Add a team profile',
  request: { params: companyParam, body: jsonBody(TeamProfileInput) },
  responses: { 201: json(profileSchema, 'Created') },
});
const listProfiles = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/team',
  operationId: 'listCompanyTeamProfiles',
  summary: 'Every team profile, published or not',
  request: { params: companyParam },
  responses: { 200: json(z.object({ results: z.array(profileSchema), next_cursor: z.null() })) },
});
const replaceProfile = adminRoute({
  method: 'put',
  path: '/companies/{company_id}/team/{profile_id}',
  operationId: 'setCompanyTeamProfile',
  summary: 'Replace a team profile',
  request: { params: teamParams, body: jsonBody(TeamProfileInput) },
  responses: { 200: json(profileSchema) },
});
const deleteProfile = adminRoute({
  method: 'delete',
  path: '/companies/{company_id}/team/{profile_id}',
  operationId: 'deleteCompanyTeamProfile',
  summary: 'Delete a team profile',
  request: { params: teamParams },
  responses: { 204: { description: 'Deleted' } },
});
const putService = adminRoute({
  method: 'put',
  path: '/companies/{company_id}/services/{key}',
  summary: 'Add or change a service',
  request: { params: serviceParams, body: jsonBody(ServiceInput.omit({ key: true })) },
  responses: { 200: json(z.object({ key: z.string(), name: z.object({ en: z.string(), ar: z.string() }), kind: z.string() })) },
});
const deleteService = adminRoute({
  method: 'delete',
  path: '/companies/{company_id}/services/{key}',
  summary: 'Remove a service',
  request: { params: serviceParams },
  responses: { 204: { description: 'Deleted' } },
});

/** Publishes or withdraws the listing of the route's slug, rendering its forms in the same transaction. */
async function changeStatus(
  services: Services,
  { company_id, slug }: z.infer<typeof slugParams>,
  status: 'published' | 'withdrawn',
) {
  const row = await services.db.transaction().execute(async (trx) => {
    const render = await renderContext(await findCompany(trx, company_id), services.config.MEDIA_BASE_URL);
    return setListingStatus(trx, render, slug, status);
  });
  return { id: row.id, slug: row.slug_en, status: row.status };
}

const presentProfile = (p: { id: string; created_at: Date | string } & Record<string, unknown>) => ({
  ...p,
  created_at: iso(p.created_at),
});

export const catalogueAdmin = createRouter()
  .openapi(importRoute, async (c) => {
    const { company_id } = c.req.valid('param');
    const doc = c.req.valid('json');
    const run = (onProgress?: (progress: ImportProgress) => void) =>
      c.var.services.db.transaction().execute(async (trx) => {
        const render = await renderContext(await findCompany(trx, company_id), c.var.services.config.MEDIA_BASE_URL);
        return importCatalogue(trx, company_id, doc, { render, onProgress });
      });
    if (wantsProgress(c)) return progressResponse(c, run) as never;
    return c.json(await run(), 200);
  })
  .openapi(statusRoute('publish'), async (c) =>
    c.json(await changeStatus(c.var.services, c.req.valid('param'), 'published'), 200),
  )
  .openapi(statusRoute('withdraw'), async (c) =>
    c.json(await changeStatus(c.var.services, c.req.valid('param'), 'withdrawn'), 200),
  )
  .openapi(addProfile, async (c) => {
    const { company_id } = c.req.valid('param');
    const input = c.req.valid('json');
    const row = await c.var.services.db.transaction().execute(async (trx) => {
      await findCompany(trx, company_id);
      return createTeamProfile(trx, company_id, input);
    });
    return c.json(presentProfile(row), 201);
  })
  .openapi(listProfiles, async (c) => {
    const { company_id } = c.req.valid('param');
    const rows = await c.var.services.db
      .selectFrom('team_profiles')
      .selectAll()
      .where('company_id', '=', company_id)
      .orderBy('position')
      .orderBy('created_at')
      .execute();
    return c.json({ results: rows.map(presentProfile), next_cursor: null }, 200);
  })
  .openapi(replaceProfile, async (c) => {
    const { company_id, profile_id } = c.req.valid('param');
    const input = c.req.valid('json');
    const row = await c.var.services.db.transaction().execute((trx) => updateTeamProfile(trx, company_id, profile_id, input));
    return c.json(presentProfile(row), 200);
  })
  .openapi(deleteProfile, async (c) => {
    const { company_id, profile_id } = c.req.valid('param');
    const gone = await c.var.services.db
      .deleteFrom('team_profiles')
      .where('company_id', '=', company_id)
      .where('id', '=', profile_id)
      .executeTakeFirst();
    if (gone.numDeletedRows === 0n) throw notFound(`The team profile ${profile_id}`);
    return c.body(null, 204);
  })
  .openapi(putService, async (c) => {
    const { company_id, key } = c.req.valid('param');
    const input = c.req.valid('json');
    const row = await c.var.services.db.transaction().execute(async (trx) => {
      await findCompany(trx, company_id);
      return upsertService(trx, company_id, { ...input, key });
    });
    return c.json({ key: row.key, name: localised(row.name), kind: row.kind }, 200);
  })
  .openapi(deleteService, async (c) => {
    const { company_id, key } = c.req.valid('param');
    const gone = await c.var.services.db
      .deleteFrom('services')
      .where('company_id', '=', company_id)
      .where('key', '=', key)
      .executeTakeFirst();
    if (gone.numDeletedRows === 0n) throw notFound(`The service ${key}`);
    return c.body(null, 204);
  });

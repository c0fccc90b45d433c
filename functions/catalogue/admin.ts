import { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/app';
import { adminRoute, companyParam, findCompany } from '../../lib/admin-route';
import { localised } from '../../lib/localise';
import type { Handler } from '../../lib/routes';
import { CatalogueImportInput, ListingAdvertisingInput, ServiceInput, TeamProfileInput } from '../../schema/catalogue/admin';
import { ListingPermitSchema } from '../../schema/catalogue/listings';
import { json, jsonBody } from '../../schema/common/api';
import { presentAdvertising } from './advertising.present';
import { type ImportProgress, importCatalogue } from './content';
import { progressResponse, wantsProgress } from './import-progress';
import { setListingAdvertising, setListingStatus } from './listing-changes';
import { renderContext } from './renders';
import { deleteService, upsertService } from './services';
import { allTeamProfiles, createTeamProfile, deleteTeamProfile, updateTeamProfile } from './team';
import { presentProfile } from './team.present';

/** The catalogue's operator routes (composed into /admin/v1 by functions/app.ts): declarations and their handlers. */

const AdvertisingSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    permit: ListingPermitSchema.nullable(),
    agent_id: z.string().nullable(),
    portals: z.object({ propertyfinder: z.boolean(), bayut: z.boolean() }),
  })
  .openapi('ListingAdvertising');

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
const deleteServiceRoute = adminRoute({
  method: 'delete',
  path: '/companies/{company_id}/services/{key}',
  summary: 'Remove a service',
  request: { params: serviceParams },
  responses: { 204: { description: 'Deleted' } },
});

const advertisingRoute = adminRoute({
  method: 'patch',
  path: '/companies/{company_id}/listings/{slug}/advertising',
  operationId: 'setCompanyListingAdvertising',
  summary: 'Set a listing’s advertising permit, its agent and the portals it goes to',
  description:
    'Fields left out keep their value. A permit whose last day has passed (the company’s time zone) is stored as expired. The listing’s public forms follow at once.',
  request: { params: slugParams, body: jsonBody(ListingAdvertisingInput) },
  responses: { 200: json(AdvertisingSchema, 'The listing’s advertising') },
});

const importHandler: Handler<typeof importRoute> = async function importCatalogueHandler(c) {
  const { company_id } = c.req.valid('param');
  const doc = c.req.valid('json');
  const { db, config, now } = c.var.services;
  const run = (onProgress?: (progress: ImportProgress) => void) =>
    db.transaction().execute(async (trx) => {
      const company = await findCompany(trx, company_id);
      const render = await renderContext(company, config.MEDIA_BASE_URL);
      return importCatalogue(trx, company, doc, { render, now: now(), onProgress });
    });
  if (wantsProgress(c)) return progressResponse(c, run) as never;
  return c.json(await run(), 200);
};

/** Publishes or withdraws the listing of the route's slug; its forms are rendered at once. */
const statusHandler = (status: 'published' | 'withdrawn'): Handler<ReturnType<typeof statusRoute>> =>
  async function changeListingStatus(c) {
    const { company_id: companyId, slug } = c.req.valid('param');
    const { db, config, now } = c.var.services;
    const target = { companyId, slug, mediaBaseUrl: config.MEDIA_BASE_URL };
    return c.json(await setListingStatus(db, target, status, now()), 200);
  };

const advertisingHandler: Handler<typeof advertisingRoute> = async function setAdvertising(c) {
  const { company_id: companyId, slug } = c.req.valid('param');
  const { db, config, now } = c.var.services;
  const target = { companyId, slug, mediaBaseUrl: config.MEDIA_BASE_URL };
  return c.json(presentAdvertising(await setListingAdvertising(db, target, c.req.valid('json'), now())), 200);
};

const addProfileHandler: Handler<typeof addProfile> = async function addTeamProfile(c) {
  const { company_id } = c.req.valid('param');
  const input = c.req.valid('json');
  return c.json(presentProfile(await createTeamProfile(c.var.services.db, company_id, input)), 201);
};

const listProfilesHandler: Handler<typeof listProfiles> = async function listTeamProfiles(c) {
  const rows = await allTeamProfiles(c.var.services.db, c.req.valid('param').company_id);
  return c.json({ results: rows.map(presentProfile), next_cursor: null }, 200);
};

const replaceProfileHandler: Handler<typeof replaceProfile> = async function replaceTeamProfile(c) {
  const { company_id, profile_id } = c.req.valid('param');
  const row = await updateTeamProfile(c.var.services.db, company_id, profile_id, c.req.valid('json'));
  return c.json(presentProfile(row), 200);
};

const deleteProfileHandler: Handler<typeof deleteProfile> = async function removeTeamProfile(c) {
  const { company_id, profile_id } = c.req.valid('param');
  await deleteTeamProfile(c.var.services.db, company_id, profile_id);
  return c.body(null, 204);
};

const putServiceHandler: Handler<typeof putService> = async function putServiceHandler(c) {
  const { company_id, key } = c.req.valid('param');
  const input = c.req.valid('json');
  const row = await upsertService(c.var.services.db, company_id, { ...input, key });
  return c.json({ key: row.key, name: localised(row.name), kind: row.kind }, 200);
};

const deleteServiceHandler: Handler<typeof deleteServiceRoute> = async function removeService(c) {
  const { company_id, key } = c.req.valid('param');
  await deleteService(c.var.services.db, company_id, key);
  return c.body(null, 204);
};

export const catalogueAdmin = createRouter()
  .openapi(importRoute, importHandler)
  .openapi(statusRoute('publish'), statusHandler('published'))
  .openapi(statusRoute('withdraw'), statusHandler('withdrawn'))
  .openapi(advertisingRoute, advertisingHandler)
  .openapi(addProfile, addProfileHandler)
  .openapi(listProfiles, listProfilesHandler)
  .openapi(replaceProfile, replaceProfileHandler)
  .openapi(deleteProfile, deleteProfileHandler)
  .openapi(putService, putServiceHandler)
  .openapi(deleteServiceRoute, deleteServiceHandler);

import { z } from '@hono/zod-openapi';
import { adminRoute, companyParam } from '../../lib/admin-route';
import { createRouter } from '../../lib/app';
import { keyringOf } from '../../lib/crypto-jwe';
import type { Handler } from '../../lib/routes';
import { json, jsonBody } from '../../schema/common/api';
import {
  CalendarImportInput,
  CalendarImportSchema,
  CalendarImportUpdate,
  importIdParam,
} from '../../schema/stay/calendar-imports';
import { addImport, changeImport, homeImports, removeImport } from './calendar-imports';
import { syncNow } from './calendar-sync';
import { presentImport } from './calendar-imports.present';

/** Calendars imported per holiday home (issue 24), in the admin API. */
const base = '/companies/{company_id}/listings/{slug}/calendar-imports';
const homeParams = companyParam.extend({ slug: z.string().min(1).max(200) });
const importParams = homeParams.extend({ import_id: importIdParam });

const list = adminRoute({
  method: 'get',
  path: base,
  summary: "A holiday home's imported calendars and their health",
  request: { params: homeParams },
  responses: { 200: json(z.object({ results: z.array(CalendarImportSchema), next_cursor: z.null() })) },
});
const create = adminRoute({
  method: 'post',
  path: base,
  summary: "Import a channel's calendar (iCalendar URL) into a holiday home's",
  request: { params: homeParams, body: jsonBody(CalendarImportInput) },
  responses: { 201: json(CalendarImportSchema, 'Added; synced by scheduled work (or POST …/sync)') },
});
const update = adminRoute({
  method: 'patch',
  path: `${base}/{import_id}`,
  summary: "Change an import's URL, channel or interval",
  request: { params: importParams, body: jsonBody(CalendarImportUpdate) },
  responses: { 200: json(CalendarImportSchema) },
});
const remove = adminRoute({
  method: 'delete',
  path: `${base}/{import_id}`,
  summary: 'Remove an import and its blocks',
  request: { params: importParams },
  responses: { 204: { description: 'Removed' } },
});
const sync = adminRoute({
  method: 'post',
  path: `${base}/{import_id}/sync`,
  summary: 'Sync an import at once',
  request: { params: importParams },
  responses: { 200: json(CalendarImportSchema, 'The import after the sync (`last_error` says why one failed)') },
});

const listImports: Handler<typeof list> = async (c) => {
  const { company_id, slug } = c.req.valid('param');
  return c.json({ results: (await homeImports(c.var.services.db, company_id, slug)).map(presentImport), next_cursor: null }, 200);
};

const postImport: Handler<typeof create> = async (c) => {
  const { company_id, slug } = c.req.valid('param');
  const made = await addImport(c.var.services, keyringOf(c.var.services.config), company_id, slug, c.req.valid('json'));
  return c.json(presentImport(made), 201);
};

const patchImport: Handler<typeof update> = async (c) => {
  const { company_id, slug, import_id } = c.req.valid('param');
  const keyring = keyringOf(c.var.services.config);
  return c.json(
    presentImport(await changeImport(c.var.services, keyring, company_id, slug, import_id, c.req.valid('json'))),
    200,
  );
};

const deleteImport: Handler<typeof remove> = async (c) => {
  const { company_id, slug, import_id } = c.req.valid('param');
  await removeImport(c.var.services.db, company_id, slug, import_id);
  return c.body(null, 204);
};

const syncImportNow: Handler<typeof sync> = async (c) => {
  const { company_id, slug, import_id } = c.req.valid('param');
  const keyring = keyringOf(c.var.services.config);
  return c.json(presentImport(await syncNow(c.var.services, keyring, company_id, slug, import_id)), 200);
};

export const calendarImportsAdmin = createRouter()
  .openapi(list, listImports)
  .openapi(create, postImport)
  .openapi(update, patchImport)
  .openapi(remove, deleteImport)
  .openapi(sync, syncImportNow);

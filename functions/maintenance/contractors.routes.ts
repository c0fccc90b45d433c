import { createRouter } from '../../lib/app';
import { changed, narrowed, readOne, syncList, syncResource, written } from '../../lib/resources';
import type { Handler } from '../../lib/routes';
import { json, jsonBody, noQuery } from '../../schema/common/api';
import {
  ContractorInput,
  ContractorListSchema,
  ContractorParams,
  ContractorPatchInput,
  ContractorSchema,
  ContractorsQuery,
} from '../../schema/maintenance/contractors';
import { addContractor, changeContractor } from './contractors';
import { type ContractorView, presentContractor, selectContractors } from './contractors.present';
import { knownId } from './path-ids';
import { maintenanceRoute } from './scopes';

/** A firm's contact details are business data; a sole trader's are a person's: their reads are audited. */
const resource = syncResource('contractors', {
  idType: 'uuid',
  noun: 'contractor',
  external: 'contractor',
  select: selectContractors,
  present: (_services, rows) => rows.map(presentContractor),
  personal: (view: ContractorView) => (view.kind === 'sole_trader' ? view.contractor_id : undefined),
});

export const contractorExample = {
  name: 'Gulf Cool Air Conditioning LLC',
  trades: ['air_conditioning'],
  email: 'jobs@gulfcool.example',
  phone: '+97145550100',
  external: { source: 'helpdesk', id: 'vendor-17' },
};

const versioned = { table: 'contractors', column: 'id', param: 'contractor_id', uuid: true } as const;

const listRoute = maintenanceRoute('read:maintenance', {
  method: 'get',
  path: '/contractors',
  summary: 'Contractors, in (updated_at, id) order for sync',
  request: { query: ContractorsQuery },
  responses: { 200: json(ContractorListSchema, 'A page of contractors') },
});
const oneRoute = maintenanceRoute('read:maintenance', {
  method: 'get',
  path: '/contractors/{contractor_id}',
  versioned,
  summary: 'One contractor',
  request: { params: ContractorParams, query: noQuery },
  responses: { 200: json(ContractorSchema, 'The contractor') },
});
const addRoute = maintenanceRoute('write:maintenance', {
  method: 'post',
  path: '/contractors',
  summary: 'Add a contractor (a firm, or a sole trader)',
  request: { body: jsonBody(ContractorInput, contractorExample) },
  responses: {
    201: json(ContractorSchema, 'A new contractor'),
    200: json(ContractorSchema, 'The contractor added before with the same external id'),
  },
});
const patchRoute = maintenanceRoute('write:maintenance', {
  method: 'patch',
  path: '/contractors/{contractor_id}',
  versioned,
  summary: 'Change a contractor, stop giving them work (`status: stopped`), or take them back',
  request: { params: ContractorParams, body: jsonBody(ContractorPatchInput, { notes: 'Preferred for split units.' }) },
  responses: { 200: json(ContractorSchema, 'The contractor') },
});

const listContractors: Handler<typeof listRoute> = async (c) => {
  const { status, trade, ...query } = c.req.valid('query');
  const filtered = narrowed(resource, selectContractors, (select) =>
    select
      .$if(status !== undefined, (q) => q.where('contractors.status', '=', status!))
      .$if(trade !== undefined, (q) => q.where((eb) => eb(eb.val(trade!), '=', eb.fn.any('contractors.trades')))),
  );
  return c.json(await syncList(c, filtered, query), 200);
};

const oneContractor: Handler<typeof oneRoute> = async (c) =>
  c.json(await readOne(c, resource, 'id', knownId(c.req.valid('param').contractor_id, 'contractor')), 200);

const postContractor: Handler<typeof addRoute> = async (c) => {
  const { view, status } = await written(c, resource, (scope) => addContractor(scope, c.req.valid('json')));
  return c.json(view, status);
};

const patchContractor: Handler<typeof patchRoute> = async (c) =>
  c.json(
    await changed(c, resource, (scope) =>
      changeContractor(scope, knownId(c.req.valid('param').contractor_id, 'contractor'), c.req.valid('json')),
    ),
    200,
  );

export const contractors = createRouter()
  .openapi(listRoute, listContractors)
  .openapi(oneRoute, oneContractor)
  .openapi(addRoute, postContractor)
  .openapi(patchRoute, patchContractor);

import { createRouter } from '../../lib/app';
import { transactionRetryingConflict } from '../../lib/external-ids';
import { createdOnce, narrowed, readOne, readWritten, syncList, syncResource } from '../../lib/resources';
import { json, jsonBody, noQuery } from '../../schema/common/api';
import {
  ContractorInput,
  ContractorListSchema,
  ContractorParams,
  ContractorPatchInput,
  ContractorSchema,
  ContractorsQuery,
} from '../../schema/maintenance/contractors';
import { createContractor, selectContractors, updateContractor } from './contractors';
import { type ContractorView, presentContractors } from './contractors.present';
import { knownId } from './path-ids';
import { maintenanceRoute } from './scopes';

/** A firm's contact details are business data; a sole trader's are a person's: their reads are audited. */
const resource = syncResource('contractors', {
  idType: 'uuid',
  noun: 'contractor',
  external: 'contractor',
  select: selectContractors,
  present: (services, rows) => presentContractors(services.db, rows),
  personal: (view: ContractorView) => (view.kind === 'sole_trader' ? view.contractor_id : undefined),
});

export const contractorExample = {
  name: 'Gulf Cool Air Conditioning LLC',
  trades: ['air_conditioning'],
  email: 'jobs@gulfcool.example',
  phone: '+97145550100',
  external: { source: 'helpdesk', id: 'vendor-17' },
};

const record = { table: 'contractors', column: 'id', param: 'contractor_id', uuid: true } as const;

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
  record,
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
  record,
  summary: 'Change a contractor, stop giving them work (`status: stopped`), or take them back',
  request: { params: ContractorParams, body: jsonBody(ContractorPatchInput, { notes: 'Preferred for split units.' }) },
  responses: { 200: json(ContractorSchema, 'The contractor') },
});

export const contractors = createRouter()
  .openapi(listRoute, async (c) => {
    const { status, trade, ...query } = c.req.valid('query');
    const filtered = narrowed(resource, selectContractors, (select) => {
      let narrow = select;
      if (status !== undefined) narrow = narrow.where('contractors.status', '=', status);
      if (trade !== undefined) narrow = narrow.where((eb) => eb(eb.val(trade), '=', eb.fn.any('contractors.trades')));
      return narrow;
    });
    return c.json(await syncList(c, filtered, query), 200);
  })
  .openapi(oneRoute, async (c) =>
    c.json(await readOne(c, resource, 'id', knownId(c.req.valid('param').contractor_id, 'contractor')), 200),
  )
  .openapi(addRoute, async (c) => {
    const input = c.req.valid('json');
    const company = c.var.company;
    const { view, status } = await createdOnce(c, resource, (trx) => createContractor(trx, company, input));
    return c.json(view, status);
  })
  .openapi(patchRoute, async (c) => {
    const { contractor_id } = c.req.valid('param');
    const input = c.req.valid('json');
    const { company, services } = c.var;
    const id = await transactionRetryingConflict(services.db, (trx) =>
      updateContractor(trx, company, knownId(contractor_id, 'contractor'), input, services.now()),
    );
    return c.json(await readWritten(c, resource, id), 200);
  });

import { createRouter } from '../../lib/app';
import { personSearch } from '../../lib/person-search';
import { changed, narrowed, readOne, syncList, syncResource, written } from '../../lib/resources';
import type { Handler } from '../../lib/routes';
import { json, jsonBody, noQuery } from '../../schema/common/api';
import {
  DealInput,
  DealListSchema,
  DealMoveAnswer,
  DealParams,
  DealPatchInput,
  DealSchema,
  DealsQuery,
  MoveInput,
} from '../../schema/pipelines/deals';
import { moveDeal } from './deal-stages';
import { addDeal } from './deal-create';
import { changeDeal } from './deals';
import { type DealRecord, type DealView, presentDeal, selectDeals } from './deals.present';
import { pipelinesRoute } from './scopes';

/** A deal names its person (personal data): every read is audited. */
const dealResource = syncResource<DealRecord, DealView>('deals', {
  idType: 'uuid',
  noun: 'deal',
  external: 'deal',
  select: selectDeals,
  present: (_services, rows) => rows.map(presentDeal),
  personal: (view) => view.reference,
});

const versioned = { table: 'deals', column: 'reference', param: 'reference' } as const;

export const dealExample = {
  pipeline: 'sales',
  person: { name: 'Sara Haddad', email: 'sara.haddad@example.com' },
  title: 'Sara Haddad — 2BR Marina Gate',
  home: 'marina-gate-2br-sea-view',
  value: '2450000.00',
  external: { source: 'pipedrive', id: 'deal-1001' },
};

const listRoute = pipelinesRoute('read:pipelines', {
  method: 'get',
  path: '/deals',
  summary: 'Deals, in (updated_at, id) order for sync',
  request: { query: DealsQuery },
  responses: { 200: json(DealListSchema, 'A page of deals') },
});
const oneRoute = pipelinesRoute('read:pipelines', {
  method: 'get',
  path: '/deals/{reference}',
  versioned,
  summary: 'One deal',
  request: { params: DealParams, query: noQuery },
  responses: { 200: json(DealSchema, 'The deal') },
});
const addRoute = pipelinesRoute('write:pipelines', {
  method: 'post',
  path: '/deals',
  summary: 'Add a deal from an enquiry’s reference, a person’s reference or their details',
  request: { body: jsonBody(DealInput, dealExample) },
  responses: {
    201: json(DealSchema, 'A new deal'),
    200: json(DealSchema, 'The deal added before with the same external id'),
  },
});
const patchRoute = pipelinesRoute('write:pipelines', {
  method: 'patch',
  path: '/deals/{reference}',
  versioned,
  summary: 'Change title, home, owner, handler, department, value or commission, probability, expected close, your id',
  request: { params: DealParams, body: jsonBody(DealPatchInput, { probability: 75, expected_close: '2027-03-31' }) },
  responses: { 200: json(DealSchema, 'The deal') },
});
const moveRoute = pipelinesRoute('write:pipelines', {
  method: 'post',
  path: '/deals/{reference}/move',
  versioned,
  summary: 'Move a deal to another stage of its pipeline by key, in any direction (won and lost stages close it)',
  request: { params: DealParams, body: jsonBody(MoveInput, { stage: 'viewing' }) },
  responses: { 200: json(DealMoveAnswer, 'The deal on its new stage, with the move’s warnings') },
});

const listDeals: Handler<typeof listRoute> = async (c) => {
  const { pipeline, stage, status, person, q, ...query } = c.req.valid('query');
  const found = await personSearch(c.var.services.db, c.var.company, 'person', q);
  const filtered = narrowed(dealResource, selectDeals, (select) =>
    select
      .$if(found !== undefined, (s) => s.where(found!))
      .$if(pipeline !== undefined, (q) => q.where('pipeline.key', '=', pipeline!))
      .$if(stage !== undefined, (q) => q.where('stage.key', '=', stage!))
      .$if(status !== undefined, (q) => q.where('stage.kind', '=', status!))
      .$if(person !== undefined, (q) => q.where('person.reference', '=', person!)),
  );
  return c.json(await syncList(c, filtered, query), 200);
};

const oneDeal: Handler<typeof oneRoute> = async (c) =>
  c.json(await readOne(c, dealResource, 'reference', c.req.valid('param').reference), 200);

const postDeal: Handler<typeof addRoute> = async (c) => {
  const { view, status } = await written(c, dealResource, (scope) => addDeal(scope, c.req.valid('json')));
  return c.json(view, status);
};

const patchDeal: Handler<typeof patchRoute> = async (c) =>
  c.json(await changed(c, dealResource, (scope) => changeDeal(scope, c.req.valid('param').reference, c.req.valid('json'))), 200);

const postMove: Handler<typeof moveRoute> = async (c) => {
  let warnings: Awaited<ReturnType<typeof moveDeal>>['warnings'] = [];
  const view = await changed(c, dealResource, async (scope) => {
    const moved = await moveDeal(scope, c.req.valid('param').reference, c.req.valid('json'));
    warnings = moved.warnings;
    return moved.written;
  });
  return c.json({ ...view, warnings }, 200);
};

export const deals = createRouter()
  .openapi(listRoute, listDeals)
  .openapi(oneRoute, oneDeal)
  .openapi(addRoute, postDeal)
  .openapi(patchRoute, patchDeal)
  .openapi(moveRoute, postMove);

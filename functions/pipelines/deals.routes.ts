import { createRouter } from '../../lib/app';
import { actorOf } from '../../lib/audit';
import { transactionRetryingConflict } from '../../lib/external-ids';
import { readOne, readWritten, syncList, syncResource } from '../../lib/resources';
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
import { createDeal, selectDeals, updateDeal } from './deals';
import { type DealRecord, type DealView, presentDeals } from './deals.present';
import { moveDeal } from './moves';
import { pipelinesRoute } from './route';

/** A deal names its person (personal data): every read is audited. */
export const dealResource = syncResource<DealRecord, DealView>('deals', {
  idType: 'uuid',
  noun: 'deal',
  external: 'deal',
  select: selectDeals,
  present: (services, rows) => presentDeals(services.db, rows),
  personal: (view) => view.reference,
});

const record = { table: 'deals', column: 'reference', param: 'reference' } as const;

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
  record,
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
  record,
  summary: 'Change title, home, owner, handler, department, value or commission, probability, expected close, your id',
  request: { params: DealParams, body: jsonBody(DealPatchInput, { probability: 75, expected_close: '2027-03-31' }) },
  responses: { 200: json(DealSchema, 'The deal') },
});
const moveRoute = pipelinesRoute('write:pipelines', {
  method: 'post',
  path: '/deals/{reference}/move',
  record,
  summary: 'Move a deal to another stage of its pipeline by key, in any direction (won and lost stages close it)',
  request: { params: DealParams, body: jsonBody(MoveInput, { stage: 'viewing' }) },
  responses: { 200: json(DealMoveAnswer, 'The deal on its new stage, with the move’s warnings') },
});

export const deals = createRouter()
  .openapi(listRoute, async (c) => {
    const { pipeline, stage, status, person, ...query } = c.req.valid('query');
    const filtered = {
      ...dealResource,
      select: (db: Parameters<typeof selectDeals>[0], companyId: string) => {
        let select = selectDeals(db, companyId);
        if (pipeline !== undefined) select = select.where('pipeline.key', '=', pipeline);
        if (stage !== undefined) select = select.where('stage.key', '=', stage);
        if (status !== undefined) select = select.where('stage.kind', '=', status);
        if (person !== undefined) select = select.where('person.reference', '=', person);
        return select;
      },
    };
    return c.json(await syncList(c, filtered, query), 200);
  })
  .openapi(oneRoute, async (c) => c.json(await readOne(c, dealResource, 'reference', c.req.valid('param').reference), 200))
  .openapi(addRoute, async (c) => {
    const input = c.req.valid('json');
    const company = c.var.company;
    const result = await transactionRetryingConflict(c.var.services.db, (trx) =>
      createDeal(trx, company, input, actorOf(c.var.caller)),
    );
    return c.json(await readWritten(c, dealResource, result.id), result.created ? 201 : 200);
  })
  .openapi(patchRoute, async (c) => {
    const { reference } = c.req.valid('param');
    const input = c.req.valid('json');
    const company = c.var.company;
    const id = await transactionRetryingConflict(c.var.services.db, (trx) => updateDeal(trx, company, reference, input));
    return c.json(await readWritten(c, dealResource, id), 200);
  })
  .openapi(moveRoute, async (c) => {
    const { reference } = c.req.valid('param');
    const input = c.req.valid('json');
    const { company, services } = c.var;
    const moved = await services.db
      .transaction()
      .execute((trx) => moveDeal(trx, company, reference, input, services.now(), actorOf(c.var.caller)));
    return c.json({ ...(await readWritten(c, dealResource, moved.id)), warnings: moved.warnings }, 200);
  });

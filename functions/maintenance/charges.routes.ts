import { createRouter } from '../../lib/app';
import { changed, narrowed, readOne, syncList, syncResource, written } from '../../lib/resources';
import type { Handler } from '../../lib/routes';
import { json, jsonBody, noQuery, problem } from '../../schema/common/api';
import {
  ChargeInput,
  ChargeListSchema,
  ChargeParams,
  ChargePatchInput,
  ChargeSchema,
  ChargesQuery,
} from '../../schema/maintenance/charges';
import { addCharge, changeCharge } from './charges';
import { type ChargeRecord, type ChargeView, filterCharges, presentCharge, selectCharges } from './charges.present';
import { knownId } from './path-ids';
import { maintenanceRoute } from './scopes';

/** A charge booked to an owner names a person, and a description may name the renter: such reads are audited. */
const resource = syncResource<ChargeRecord, ChargeView>('job_charges', {
  idType: 'uuid',
  noun: 'charge',
  external: 'job_charge',
  select: selectCharges,
  present: (_services, rows) => rows.map(presentCharge),
  personal: (view) => (view.booked_owner === null && view.description === null ? undefined : view.charge_id),
});

const versioned = { table: 'job_charges', column: 'id', param: 'charge_id', uuid: true } as const;

const listRoute = maintenanceRoute('read:maintenance', {
  method: 'get',
  path: '/job-charges',
  summary: 'What jobs cost, who pays and the day each counted for the owner; (updated_at, id) order for sync',
  request: { query: ChargesQuery },
  responses: { 200: json(ChargeListSchema, 'A page of charges') },
});
const oneRoute = maintenanceRoute('read:maintenance', {
  method: 'get',
  path: '/job-charges/{charge_id}',
  versioned,
  summary: 'One charge',
  request: { params: ChargeParams, query: noQuery },
  responses: { 200: json(ChargeSchema, 'The charge') },
});
const addRoute = maintenanceRoute('write:maintenance', {
  method: 'post',
  path: '/job-charges',
  summary: 'Record a charge on a job, booked today to the home’s owner',
  request: { body: jsonBody(ChargeInput, { job: 'J-7K3M9Q2XAB', cost: '450.00', payer: 'owner' }) },
  responses: {
    201: json(ChargeSchema, 'The charge, booked'),
    200: json(ChargeSchema, 'The charge recorded before with the same external id'),
  },
});
const patchRoute = maintenanceRoute('write:maintenance', {
  method: 'patch',
  path: '/job-charges/{charge_id}',
  versioned,
  summary: 'Cancel a charge (a mistake), or mark a renter’s charge paid; nothing else changes',
  request: { params: ChargeParams, body: jsonBody(ChargePatchInput, { status: 'cancelled' }) },
  responses: {
    200: json(ChargeSchema, 'The charge'),
    409: problem('`charge_fixed`: a booked field was sent; `invalid_transition`: cancelled, or not a renter’s charge'),
  },
});

const listCharges: Handler<typeof listRoute> = async (c) => {
  const { job, payer, owner, status, booked_from, booked_to, cancelled_from, cancelled_to, ...query } = c.req.valid('query');
  const filters = { job, payer, owner, status, booked_from, booked_to, cancelled_from, cancelled_to };
  return c.json(
    await syncList(
      c,
      narrowed(resource, selectCharges, (select) => filterCharges(select, filters)),
      query,
    ),
    200,
  );
};

const oneCharge: Handler<typeof oneRoute> = async (c) =>
  c.json(await readOne(c, resource, 'id', knownId(c.req.valid('param').charge_id, 'charge')), 200);

const postCharge: Handler<typeof addRoute> = async (c) => {
  const { view, status } = await written(c, resource, (scope) => addCharge(scope, c.req.valid('json')));
  return c.json(view, status);
};

const patchCharge: Handler<typeof patchRoute> = async (c) =>
  c.json(
    await changed(c, resource, (scope) =>
      changeCharge(scope, knownId(c.req.valid('param').charge_id, 'charge'), c.req.valid('json')),
    ),
    200,
  );

export const charges = createRouter()
  .openapi(listRoute, listCharges)
  .openapi(oneRoute, oneCharge)
  .openapi(addRoute, postCharge)
  .openapi(patchRoute, patchCharge);

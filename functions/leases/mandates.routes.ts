import { keyringOf } from '../../lib/crypto-jwe';
import { createRouter } from '../../lib/app';
import { changed, narrowed, readOne, syncList, syncResource, written } from '../../lib/resources';
import type { Handler } from '../../lib/routes';
import { json, jsonBody, noQuery, problem } from '../../schema/common/api';
import { LeaseParams } from '../../schema/leases/leases';
import {
  RentMandateInput,
  RentMandateListSchema,
  RentMandateParams,
  RentMandatePatchInput,
  RentMandateSchema,
  RentMandatesQuery,
} from '../../schema/leases/mandates';
import { changeMandate, createMandate, filteredMandates, mandateId } from './mandates';
import { presentMandate, type RentMandateRecord, type RentMandateView, selectMandates } from './mandates.present';
import { leasesRoute } from './scopes';

/** A mandate names the account holder and a bank account (personal data): every read is audited, by mandate id. */
const mandateResource = syncResource<RentMandateRecord, RentMandateView>('rent_mandates', {
  idType: 'uuid',
  noun: 'mandate',
  select: selectMandates,
  present: (_services, rows) => rows.map(presentMandate),
  personal: (view) => view.mandate_id,
});

const versioned = { table: 'rent_mandates', column: 'id', param: 'mandate_id', uuid: true } as const;

const listRoute = leasesRoute('read:leases', {
  method: 'get',
  path: '/rent-mandates',
  summary: 'Direct-debit mandates, in (updated_at, id) order for sync',
  request: { query: RentMandatesQuery },
  responses: { 200: json(RentMandateListSchema, 'A page of mandates') },
});
const oneRoute = leasesRoute('read:leases', {
  method: 'get',
  path: '/rent-mandates/{mandate_id}',
  versioned,
  summary: 'One direct-debit mandate (the IBAN by its last four characters only)',
  request: { params: RentMandateParams, query: noQuery },
  responses: { 200: json(RentMandateSchema, 'The mandate') },
});
const addRoute = leasesRoute('write:leases', {
  method: 'post',
  path: '/leases/{reference}/rent-mandates',
  operationId: 'createRentMandate',
  summary: 'Record a direct-debit mandate on a draft or active lease, pending until the bank accepts it',
  request: {
    params: LeaseParams,
    body: jsonBody(RentMandateInput, {
      mandate_reference: 'DDA-2027-000451',
      bank: { name: 'Emirates NBD', code: '026' },
      account_holder: 'Renter Name',
      iban: 'AE070331234567890123456',
      max_amount: '30000.00',
      starts_on: '2027-01-01',
      ends_on: '2027-12-31',
    }),
  },
  responses: {
    201: json(RentMandateSchema, 'The new mandate, pending'),
    200: json(RentMandateSchema, 'The mandate recorded before on this lease with the same mandate_reference'),
    409: problem(
      '`mandate_reference_taken`: the reference is recorded on another lease; `invalid_transition`: an ended lease takes no mandate',
    ),
    503: problem('`encryption_unavailable`: no key to seal the IBAN with; nothing was recorded'),
  },
});
const patchRoute = leasesRoute('write:leases', {
  method: 'patch',
  path: '/rent-mandates/{mandate_id}',
  versioned,
  summary: 'Active (the bank accepted it), rejected, cancelled or expired',
  request: { params: RentMandateParams, body: jsonBody(RentMandatePatchInput, { status: 'active' }) },
  responses: {
    200: json(RentMandateSchema, 'The mandate (also when it had that status already: nothing written)'),
    409: problem('`invalid_transition`: a move the states do not allow (`allowed` lists where it may move)'),
  },
});

const listMandates: Handler<typeof listRoute> = async (c) => {
  const { lease, status, ...query } = c.req.valid('query');
  return c.json(await syncList(c, narrowed(mandateResource, selectMandates, filteredMandates({ lease, status })), query), 200);
};

const oneMandate: Handler<typeof oneRoute> = async (c) =>
  c.json(await readOne(c, mandateResource, 'id', mandateId(c.req.valid('param').mandate_id)), 200);

const postMandate: Handler<typeof addRoute> = async (c) => {
  const keyring = keyringOf(c.var.services.config);
  const { view, status } = await written(c, mandateResource, (scope) =>
    createMandate(scope, keyring, c.req.valid('param').reference, c.req.valid('json')),
  );
  return c.json(view, status);
};

const patchMandate: Handler<typeof patchRoute> = async (c) =>
  c.json(
    await changed(c, mandateResource, (scope) => changeMandate(scope, c.req.valid('param').mandate_id, c.req.valid('json'))),
    200,
  );

export const rentMandates = createRouter()
  .openapi(listRoute, listMandates)
  .openapi(oneRoute, oneMandate)
  .openapi(addRoute, postMandate)
  .openapi(patchRoute, patchMandate);

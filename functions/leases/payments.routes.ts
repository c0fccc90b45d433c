import { createRouter } from '../../lib/app';
import { actorOf } from '../../lib/audit';
import { notFound } from '../../lib/errors';
import { transactionRetryingConflict } from '../../lib/external-ids';
import { readOne, readWritten, syncList, syncResource } from '../../lib/resources';
import { isUuid, json, jsonBody, noQuery, problem } from '../../schema/common/api';
import {
  RentPaymentInput,
  RentPaymentListSchema,
  RentPaymentParams,
  RentPaymentPatchInput,
  RentPaymentSchema,
  RentPaymentsQuery,
} from '../../schema/leases/rent-payments';
import { addReplacement, changePayment, selectPayments } from './payments';
import { presentPayments, type RentPaymentRecord, type RentPaymentView } from './payments.present';
import { leasesRoute } from './route';

/**
 * A rent payment is a renter's money (its lease names them; a cheque's number and bank are theirs): every read is
 * audited, by payment id.
 */
const resource = syncResource<RentPaymentRecord, RentPaymentView>('rent_payments', {
  idType: 'uuid',
  noun: 'payment',
  external: 'rent_payment',
  select: selectPayments,
  present: (services, rows) => presentPayments(services.db, rows),
  personal: (view) => view.payment_id,
});

const record = { table: 'rent_payments', column: 'id', param: 'payment_id', uuid: true } as const;

const listRoute = leasesRoute('read:leases', {
  method: 'get',
  path: '/rent-payments',
  summary: 'Rent payments, in (updated_at, id) order for sync; a month of receipts or reversals for the accounts',
  request: { query: RentPaymentsQuery },
  responses: { 200: json(RentPaymentListSchema, 'A page of rent payments') },
});
const oneRoute = leasesRoute('read:leases', {
  method: 'get',
  path: '/rent-payments/{payment_id}',
  record,
  summary: 'One rent payment',
  request: { params: RentPaymentParams, query: noQuery },
  responses: { 200: json(RentPaymentSchema, 'The payment') },
});
const addRoute = leasesRoute('write:leases', {
  method: 'post',
  path: '/rent-payments',
  summary: 'A replacement for a bounced payment, due on the same lease',
  request: {
    body: jsonBody(RentPaymentInput, {
      replaces: '0b6c1f9e-4a8e-4b7e-9a51-3f2d8c7e6a10',
      due_on: '2027-04-15',
      amount: '30000.00',
      cheque: { number: '000457', bank: 'Emirates NBD' },
    }),
  },
  responses: {
    201: json(RentPaymentSchema, 'The new payment, due'),
    200: json(RentPaymentSchema, 'The replacement added before with the same external id'),
    409: problem('`payment_not_bounced`: only a bounced payment is replaced'),
  },
});
const patchRoute = leasesRoute('write:leases', {
  method: 'patch',
  path: '/rent-payments/{payment_id}',
  record,
  summary: 'Received, bounced or cancelled; or a change to a payment still due',
  request: { params: RentPaymentParams, body: jsonBody(RentPaymentPatchInput, { status: 'received' }) },
  responses: {
    200: json(RentPaymentSchema, 'The payment (also when it had that status already: nothing written)'),
    409: problem(
      '`invalid_transition`: a move the states do not allow; `payment_settled`: only a payment still due changes its ' +
        'own fields; `payment_bounced`: a bounced payment never changes',
    ),
  },
});

export const rentPayments = createRouter()
  .openapi(listRoute, async (c) => {
    const { lease, status, booked_from, booked_to, bounced_from, bounced_to, ...query } = c.req.valid('query');
    const filtered = {
      ...resource,
      select: (db: Parameters<typeof selectPayments>[0], companyId: string) => {
        let select = selectPayments(db, companyId);
        if (lease !== undefined) select = select.where('lease.reference', '=', lease);
        if (status !== undefined) select = select.where('rent_payments.status', '=', status);
        if (booked_from !== undefined) select = select.where('rent_payments.booked_on', '>=', booked_from);
        if (booked_to !== undefined) select = select.where('rent_payments.booked_on', '<=', booked_to);
        if (bounced_from !== undefined) select = select.where('rent_payments.bounced_on', '>=', bounced_from);
        if (bounced_to !== undefined) select = select.where('rent_payments.bounced_on', '<=', bounced_to);
        return select;
      },
    };
    return c.json(await syncList(c, filtered, query), 200);
  })
  .openapi(oneRoute, async (c) => {
    const { payment_id } = c.req.valid('param');
    if (!isUuid(payment_id)) throw notFound(`The payment ${payment_id}`);
    return c.json(await readOne(c, resource, 'id', payment_id), 200);
  })
  .openapi(addRoute, async (c) => {
    const input = c.req.valid('json');
    const company = c.var.company;
    const result = await transactionRetryingConflict(c.var.services.db, (trx) => addReplacement(trx, company, input));
    return c.json(await readWritten(c, resource, result.id), result.created ? 201 : 200);
  })
  .openapi(patchRoute, async (c) => {
    const { payment_id } = c.req.valid('param');
    const input = c.req.valid('json');
    const { company, services } = c.var;
    const id = await transactionRetryingConflict(services.db, (trx) =>
      changePayment(trx, company, payment_id, input, services.now(), actorOf(c.var.caller)),
    );
    return c.json(await readWritten(c, resource, id), 200);
  });

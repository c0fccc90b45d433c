import { createRouter } from '../../lib/app';
import { changed, narrowed, readOne, syncList, syncResource, written } from '../../lib/resources';
import type { Handler } from '../../lib/routes';
import { json, jsonBody, noQuery, problem } from '../../schema/common/api';
import {
  RentPaymentInput,
  RentPaymentListSchema,
  RentPaymentParams,
  RentPaymentPatchInput,
  RentPaymentSchema,
  RentPaymentsQuery,
} from '../../schema/leases/rent-payments';
import { addReplacement, changePayment, filteredPayments, paymentId } from './payments';
import { presentPayment, type RentPaymentRecord, type RentPaymentView, selectPayments } from './payments.present';
import { leasesRoute } from './scopes';

/**
 * A rent payment is a renter's money (its lease names them; a cheque's number and bank are theirs): every read is
 * audited, by payment id.
 */
const paymentResource = syncResource<RentPaymentRecord, RentPaymentView>('rent_payments', {
  idType: 'uuid',
  noun: 'payment',
  external: 'rent_payment',
  select: selectPayments,
  present: (_services, rows) => rows.map(presentPayment),
  personal: (view) => view.payment_id,
});

const versioned = { table: 'rent_payments', column: 'id', param: 'payment_id', uuid: true } as const;

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
  versioned,
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
    409: problem(
      '`payment_not_bounced`: only a bounced payment is replaced; `mandate_unusable`: the direct debit’s mandate is of ' +
        'another lease, not active, below the amount or outside the due day',
    ),
  },
});
const patchRoute = leasesRoute('write:leases', {
  method: 'patch',
  path: '/rent-payments/{payment_id}',
  versioned,
  summary: 'Received, bounced or cancelled; or a change to a payment still due',
  request: { params: RentPaymentParams, body: jsonBody(RentPaymentPatchInput, { status: 'received' }) },
  responses: {
    200: json(RentPaymentSchema, 'The payment (also when it had that status already: nothing written)'),
    409: problem(
      '`invalid_transition`: a move the states do not allow; `payment_settled`: only a payment still due changes its ' +
        'own fields; `payment_bounced`: a bounced payment never changes; `mandate_unusable`: the direct debit’s mandate ' +
        'is of another lease, not active (when named anew), below the amount or outside the due day',
    ),
  },
});

const listPayments: Handler<typeof listRoute> = async (c) => {
  const { lease, status, booked_from, booked_to, bounced_from, bounced_to, ...query } = c.req.valid('query');
  const filters = { lease, status, booked_from, booked_to, bounced_from, bounced_to };
  return c.json(await syncList(c, narrowed(paymentResource, selectPayments, filteredPayments(filters)), query), 200);
};

const onePayment: Handler<typeof oneRoute> = async (c) =>
  c.json(await readOne(c, paymentResource, 'id', paymentId(c.req.valid('param').payment_id)), 200);

const postPayment: Handler<typeof addRoute> = async (c) => {
  const { view, status } = await written(c, paymentResource, (scope) => addReplacement(scope, c.req.valid('json')));
  return c.json(view, status);
};

const patchPayment: Handler<typeof patchRoute> = async (c) =>
  c.json(
    await changed(c, paymentResource, (scope) => changePayment(scope, c.req.valid('param').payment_id, c.req.valid('json'))),
    200,
  );

export const rentPayments = createRouter()
  .openapi(listRoute, listPayments)
  .openapi(oneRoute, onePayment)
  .openapi(addRoute, postPayment)
  .openapi(patchRoute, patchPayment);

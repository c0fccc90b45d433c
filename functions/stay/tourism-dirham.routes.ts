import { z } from '@hono/zod-openapi';
import { adminRoute, companyParam, findCompany } from '../../lib/admin-route';
import { createRouter } from '../../lib/app';
import { iso } from '../../lib/dates';
import { type Handler, serverRoutes } from '../../lib/routes';
import { type DirhamMonth, dirhamMonth, payOverMonth } from '../../lib/tourism-dirham';
import { json, jsonBody } from '../../schema/common/api';
import { DirhamMonthSchema, DirhamPaymentInput, DirhamQuery, dirhamMonthParam } from '../../schema/stay/tourism-dirham';

/**
 * The Tourism Dirham's monthly report (issue 37; lib/tourism-dirham.ts): a server key with the statements' read scope
 * (`read:leases`) and the admin API read it; the admin API records its payment over to DET.
 */
const dirhamRoute = serverRoutes('Statements', ['read:leases']);

const description =
  'The month’s Tourism Dirham of the company’s holiday homes classed by DET (their terms’ `det_class`): per home the nights of confirmed and paid bookings that fall in the month (a stay across two months is split by night; cancelled bookings are not counted), the bedrooms, the bedroom-nights and the amount each booking was quoted, and the total. A `closed` month (its owner statements’ month closed) is recorded the first time it is read and never changes afterwards.';

const getRoute = dirhamRoute('read:leases', {
  method: 'get',
  path: '/tourism-dirham',
  operationId: 'getTourismDirhamMonth',
  summary: 'The Tourism Dirham of a month: nights, bedrooms and amount per home, and the total',
  description,
  request: { query: DirhamQuery },
  responses: { 200: json(DirhamMonthSchema, 'The month’s report') },
});

const params = companyParam.extend(dirhamMonthParam.shape);

const adminGet = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/tourism-dirham/{month}',
  summary: 'The Tourism Dirham of a month',
  description,
  request: { params },
  responses: { 200: json(DirhamMonthSchema) },
});

const adminPay = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/tourism-dirham/{month}/payment',
  summary: 'Record the month’s Tourism Dirham paid over to DET',
  description:
    'Once, for a closed month: its report is recorded (if it was not) and its payment with it, which the accounting journal books on `paid_on` against `tourism_dirham_payable`, clearing the month’s liability. 409 `conflict` for an open month or one already paid over; 400 at `paid_on` for a day not after the month or after today.',
  request: { params, body: jsonBody(DirhamPaymentInput, { paid_on: '2027-03-10', reference: 'DET-TD-2027-02-118' }) },
  responses: { 200: json(DirhamMonthSchema), 409: json(z.object({}), 'The month is open or already paid over') },
});

/** A month's report as answered. */
function presentMonth(month: DirhamMonth) {
  const { closing, recorded_at, payment, ...rest } = month;
  return {
    month: rest.month,
    currency: rest.currency,
    status: closing.status,
    closes_on: closing.closes_on,
    recorded_at: recorded_at === null ? null : iso(recorded_at),
    homes: rest.homes,
    total: rest.total,
    payment: payment === null ? null : { paid_on: payment.paid_on, reference: payment.reference, paid_at: iso(payment.paid_at) },
  };
}

const getMonth: Handler<typeof getRoute> = async function getMonth(c) {
  const { db, now } = c.var.services;
  return c.json(presentMonth(await dirhamMonth(db, c.var.company, c.req.valid('query').month, now())), 200);
};

const getAdminMonth: Handler<typeof adminGet> = async (c) => {
  const { company_id, month } = c.req.valid('param');
  const { db, now } = c.var.services;
  const company = await findCompany(db, company_id);
  return c.json(presentMonth(await dirhamMonth(db, company, month, now())), 200);
};

const payOver: Handler<typeof adminPay> = async (c) => {
  const { company_id, month } = c.req.valid('param');
  const { db, now } = c.var.services;
  const company = await findCompany(db, company_id);
  return c.json(presentMonth(await payOverMonth(db, company, month, c.req.valid('json'), 'admin', now())), 200);
};

export const tourismDirham = createRouter().openapi(getRoute, getMonth);
export const tourismDirhamAdmin = createRouter().openapi(adminGet, getAdminMonth).openapi(adminPay, payOver);

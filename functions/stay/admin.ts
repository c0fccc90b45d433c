import { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/app';
import { adminRoute, companyParam, findCompany } from '../../lib/admin-route';
import type { Handler } from '../../lib/routes';
import { HomeTermsInput } from '../../schema/common/homes';
import { json, jsonBody, pageQuery } from '../../schema/common/api';
import { WarningSchema } from '../../schema/common/warnings';
import { AdminBookingSchema, BlockInput, BlockSchema } from '../../schema/stay/bookings';
import { blockNights, homeBlocks, unblock } from './blocks';
import { type BookingAction, bookingsPage, cancelAndRefund, shownBooking, stepBooking } from './bookings';
import { presentAdminBooking } from './bookings.present';
import { holidayHomeId, replaceHomeTerms } from './homes';
import {
  PricingToolInput,
  PricingToolSchema,
  RatesChangedSchema,
  RatesInput,
  RatesQuery,
  RatesSchema,
} from '../../schema/stay/rates';
import { setPricingTool } from './rate-push';
import { checkedRanges, homeRates, writeRates } from './rates';

const bookingParams = companyParam.extend({ reference: z.string().min(1).max(40) });
const listingParams = companyParam.extend({ slug: z.string().min(1).max(200) });

const list = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/bookings',
  summary: 'Booking requests, newest first',
  request: {
    params: companyParam,
    query: z.strictObject({
      ...pageQuery,
      status: z.enum(['held', 'confirmed', 'paid', 'cancelled']).optional(),
      listing: z.string().max(200).optional(),
    }),
  },
  responses: { 200: json(z.object({ results: z.array(AdminBookingSchema), next_cursor: z.string().nullable() })) },
});
const get = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/bookings/{reference}',
  summary: 'One booking',
  request: { params: bookingParams },
  responses: { 200: json(AdminBookingSchema) },
});
const step = (path: string, summary: string, answer = AdminBookingSchema) =>
  adminRoute({
    method: 'post',
    path: `/companies/{company_id}/bookings/{reference}/${path}`,
    summary,
    request: { params: bookingParams },
    responses: { 200: json(answer), 409: json(z.object({}), 'Not possible from the booking’s status') },
  });
/** Confirming answers `warnings` too: `import_stale` when one of the home's calendar imports is out of date. */
const confirm = step(
  'confirm',
  'Confirm a held booking: the payment window starts',
  AdminBookingSchema.extend({ warnings: z.array(WarningSchema) }),
);
const markPaid = step('mark-paid', 'Record the payment of a confirmed booking');
const cancel = step(
  'cancel',
  'Cancel a booking (its nights become free); what the guest paid online is refunded by the booking’s cancellation policy',
);

const putTerms = adminRoute({
  method: 'put',
  path: '/companies/{company_id}/listings/{slug}/booking-terms',
  summary: "Replace a holiday home's booking terms and seasons",
  request: { params: listingParams, body: jsonBody(HomeTermsInput) },
  responses: { 200: json(z.object({ listing: z.string() })) },
});
const listBlocks = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/listings/{slug}/blocks',
  summary: "A holiday home's blocks: owner, maintenance, imported, and the turnover after each stay",
  request: { params: listingParams },
  responses: { 200: json(z.object({ results: z.array(BlockSchema), next_cursor: z.null() })) },
});
const addBlock = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/listings/{slug}/blocks',
  summary: 'Block nights for the owner or maintenance',
  request: { params: listingParams, body: jsonBody(BlockInput) },
  responses: { 201: json(BlockSchema, 'Blocked'), 409: json(z.object({}), 'A booking holds some of the nights') },
});
const deleteBlock = adminRoute({
  method: 'delete',
  path: '/companies/{company_id}/listings/{slug}/blocks/{block_id}',
  summary: 'Remove a block',
  request: { params: listingParams.extend({ block_id: z.string().uuid() }) },
  responses: { 204: { description: 'Removed' } },
});

const getRatesRoute = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/listings/{slug}/rates',
  summary: "A holiday home's daily rates and restrictions (the nights with a rule of their own)",
  request: { params: listingParams, query: RatesQuery },
  responses: { 200: json(RatesSchema) },
});
const putRatesRoute = adminRoute({
  method: 'put',
  path: '/companies/{company_id}/listings/{slug}/rates',
  summary: "Set a holiday home's daily rates and restrictions by ranges of nights (a date's own rule wins)",
  request: { params: listingParams, body: jsonBody(RatesInput) },
  responses: { 200: json(RatesChangedSchema) },
});
const putToolRoute = adminRoute({
  method: 'put',
  path: '/companies/{company_id}/pricing-tool',
  summary: 'Set the company’s pricing tool and the secret its pushes are signed with (never shown again)',
  request: { params: companyParam, body: jsonBody(PricingToolInput) },
  responses: { 200: json(PricingToolSchema) },
});
const deleteToolRoute = adminRoute({
  method: 'delete',
  path: '/companies/{company_id}/pricing-tool',
  summary: 'Remove the company’s pricing tool: its pushes are refused',
  request: { params: companyParam },
  responses: { 200: json(PricingToolSchema) },
});

const getRates: Handler<typeof getRatesRoute> = async (c) => {
  const { company_id, slug } = c.req.valid('param');
  const { db, now } = c.var.services;
  return c.json(await homeRates(db, await findCompany(db, company_id), slug, c.req.valid('query'), now()), 200);
};

const putRates: Handler<typeof putRatesRoute> = async (c) => {
  const { company_id, slug } = c.req.valid('param');
  const { db, now } = c.var.services;
  const at = now();
  const company = await findCompany(db, company_id);
  const change = checkedRanges(c.req.valid('json').rates, company, at);
  const { recorded: _, ...answer } = await writeRates(db, company, slug, change, { causedBy: 'admin' }, at);
  return c.json(answer, 200);
};

const putTool: Handler<typeof putToolRoute> = async (c) => {
  const { db } = c.var.services;
  const company = await findCompany(db, c.req.valid('param').company_id);
  return c.json(await setPricingTool(db, c.var.services, company, c.req.valid('json')), 200);
};

const deleteTool: Handler<typeof deleteToolRoute> = async (c) => {
  const { db } = c.var.services;
  const company = await findCompany(db, c.req.valid('param').company_id);
  return c.json(await setPricingTool(db, c.var.services, company, null), 200);
};

const listBookings: Handler<typeof list> = async (c) => {
  const { company_id } = c.req.valid('param');
  const { listing, ...query } = c.req.valid('query');
  const db = c.var.services.db;
  await findCompany(db, company_id);
  const listingId = listing === undefined ? undefined : await holidayHomeId(db, company_id, listing);
  const page = await bookingsPage(db, company_id, { ...query, listingId });
  return c.json({ results: page.rows.map(presentAdminBooking), next_cursor: page.next_cursor }, 200);
};

const getBooking: Handler<typeof get> = async (c) => {
  const { company_id, reference } = c.req.valid('param');
  return c.json(presentAdminBooking(await shownBooking(c.var.services.db, company_id, reference)), 200);
};

/** Confirm, mark paid or cancel, as staff (`caused_by: admin`), by the services' clock. */
const stepBookingAs = (action: BookingAction): Handler<typeof markPaid> =>
  async function bookingStep(c) {
    const { company_id, reference } = c.req.valid('param');
    const { db, now } = c.var.services;
    const { booking } = await stepBooking(db, company_id, reference, action, 'admin', now());
    return c.json(presentAdminBooking(booking), 200);
  };
/** Confirm, with the `import_stale` warnings of the home's calendar imports (never a refusal). */
const confirmBooking: Handler<typeof confirm> = async (c) => {
  const { company_id, reference } = c.req.valid('param');
  const { db, now } = c.var.services;
  const { booking, warnings } = await stepBooking(db, company_id, reference, 'confirm', 'admin', now());
  return c.json({ ...presentAdminBooking(booking), warnings }, 200);
};
const markBookingPaid = stepBookingAs('mark_paid');
/** Cancel, then refund what the guest paid by the booking's policy at this moment (lib/payments/refunds.ts). */
const cancelBooking: Handler<typeof cancel> = async (c) => {
  const { company_id, reference } = c.req.valid('param');
  const { booking } = await cancelAndRefund(c.var.services, company_id, reference, 'admin', c.var.services.now());
  return c.json(presentAdminBooking(booking), 200);
};

const putBookingTerms: Handler<typeof putTerms> = async (c) => {
  const { company_id, slug } = c.req.valid('param');
  await replaceHomeTerms(c.var.services.db, company_id, slug, c.req.valid('json'));
  return c.json({ listing: slug }, 200);
};

const getBlocks: Handler<typeof listBlocks> = async (c) => {
  const { company_id, slug } = c.req.valid('param');
  const { db, now } = c.var.services;
  return c.json({ results: await homeBlocks(db, company_id, slug, now()), next_cursor: null }, 200);
};

const postBlock: Handler<typeof addBlock> = async (c) => {
  const { company_id, slug } = c.req.valid('param');
  const { db, now } = c.var.services;
  return c.json(await blockNights(db, company_id, slug, c.req.valid('json'), now()), 201);
};

const removeBlock: Handler<typeof deleteBlock> = async (c) => {
  const { company_id, slug, block_id } = c.req.valid('param');
  await unblock(c.var.services.db, company_id, slug, block_id);
  return c.body(null, 204);
};

export const bookingsAdmin = createRouter()
  .openapi(list, listBookings)
  .openapi(get, getBooking)
  .openapi(confirm, confirmBooking)
  .openapi(markPaid, markBookingPaid)
  .openapi(cancel, cancelBooking)
  .openapi(putTerms, putBookingTerms)
  .openapi(listBlocks, getBlocks)
  .openapi(addBlock, postBlock)
  .openapi(deleteBlock, removeBlock)
  .openapi(getRatesRoute, getRates)
  .openapi(putRatesRoute, putRates)
  .openapi(putToolRoute, putTool)
  .openapi(deleteToolRoute, deleteTool);

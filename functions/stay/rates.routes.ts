import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import { actorOf } from '../../lib/audit';
import { type Handler, serverRoutes } from '../../lib/routes';
import { json, jsonBody, problem } from '../../schema/common/api';
import { slugParam } from '../../schema/stay/bookings';
import { RatePush, RatePushReceipt, RatesChangedSchema, RatesInput, RatesQuery, RatesSchema } from '../../schema/stay/rates';
import { receiveRatePush } from './rate-push';
import { checkedRanges, homeRates, writeRates } from './rates';

/**
 * Daily rates and restrictions for integrations (issue 37; docs/api-reference.md, "Daily rates"): a server key reads
 * (`read:listings`) and writes (`write:listings`) a holiday home's own rules by night, and a pricing tool pushes its
 * prices to the signed receiver (`/inbound/pricing`, rate-push.ts).
 */
const ratesRoute = serverRoutes('Bookings', ['read:listings', 'write:listings']);

const example = {
  rates: [
    { starts_on: '2027-01-01', ends_on: '2027-01-03', price: '900.00', min_nights: 2 },
    { starts_on: '2027-01-03', ends_on: '2027-01-04', closed_to_arrival: true },
  ],
};

const getRoute = ratesRoute('read:listings', {
  method: 'get',
  path: '/listings/{slug}/rates',
  operationId: 'getListingRates',
  summary: 'A holiday home’s daily rates and restrictions',
  description:
    'The nights of [`from`, `to`) that have a rule of their own (a price, a minimum or maximum stay, closed to arrival or departure, closed), as ranges of consecutive nights with the same rule; nights not listed follow the home’s terms and seasons. At most 730 days. 404 for a listing that is not a holiday home of the company.',
  request: { params: slugParam, query: RatesQuery },
  responses: { 200: json(RatesSchema, 'The own rules of the window’s nights') },
});

const putRoute = ratesRoute('write:listings', {
  method: 'put',
  path: '/listings/{slug}/rates',
  operationId: 'setListingRates',
  summary: 'Set a holiday home’s daily rates and restrictions',
  description:
    'Each night of each range takes the range’s rule, over the home’s base, weekend and seasonal prices and its terms (a date’s own rule wins); nights outside the ranges keep theirs. One change, in one statement, with the event `listing.rates_changed`. 400 at the field, nothing changed: an inverted or overlapping range, a night before today or more than 730 days ahead, more than 730 nights from the first to the last. A closed night a booking holds answers the warning `rates_over_booking`: the booking is kept.',
  request: { params: slugParam, body: jsonBody(RatesInput, example) },
  responses: { 200: json(RatesChangedSchema, 'Written') },
});

const pushRoute = defineRoute({
  method: 'post',
  path: '/inbound/pricing',
  operationId: 'receiveRatePush',
  tags: ['Inbound'],
  summary: 'Receive a pricing tool’s daily prices (PriceLabs and peers)',
  description:
    'A dynamic-pricing tool pushes one home’s nights by date (`data`: `date`, `price`, `min_stay`, `max_stay`, `check_in`, `check_out`, `unbookable`), up to 730, signed with Standard Webhooks (`webhook-id`, `webhook-timestamp` within 5 minutes, `webhook-signature` with the secret the company set for its tool in the admin API). The company comes from the host; the signature is the only credential: 401 `signature_rejected`, nothing changed. The `webhook-id` is the push’s own id: kept, and a repeat answers `recorded: false` without writing. Bad nights are 400 at `data.<i>.<field>`, nothing changed.',
  access: { kind: 'inbound' },
  request: {
    body: {
      required: true,
      description: 'The push, exactly as signed.',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/RatePush' } } },
    },
  },
  responses: {
    200: json(RatePushReceipt, 'Verified and recorded (or a repeat: `recorded: false`).'),
    401: problem('`signature_rejected`: the signature is missing, wrong or out of time, or the company has no pricing tool.'),
  },
});

const getRates: Handler<typeof getRoute> = async function getRates(c) {
  const { db, now } = c.var.services;
  return c.json(await homeRates(db, c.var.company, c.req.valid('param').slug, c.req.valid('query'), now()), 200);
};

const putRates: Handler<typeof putRoute> = async function putRates(c) {
  const { db, now } = c.var.services;
  const at = now();
  const change = checkedRanges(c.req.valid('json').rates, c.var.company, at);
  const written = await writeRates(db, c.var.company, c.req.valid('param').slug, change, { causedBy: actorOf(c.var.caller) }, at);
  const { recorded: _, ...answer } = written;
  return c.json(answer, 200);
};

const receivePush: Handler<typeof pushRoute> = async function receivePush(c) {
  const body = await c.req.text();
  return c.json(await receiveRatePush(c.var.services, c.var.company, { body, headers: c.req.raw.headers }), 200);
};

export const rates = createRouter().openapi(getRoute, getRates).openapi(putRoute, putRates).openapi(pushRoute, receivePush);
rates.openAPIRegistry.register('RatePush', RatePush);

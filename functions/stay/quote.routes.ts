import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import { QuoteQuery, QuoteSchema, slugParam } from '../../schema/stay/bookings';
import type { Handler } from '../../lib/routes';
import { quoteStay } from './quote';
import { json } from '../../schema/common/api';

const route = defineRoute({
  method: 'get',
  path: '/listings/{slug}/quote',
  tags: ['Bookings'],
  summary: 'The price of a stay',
  description:
    "Each night's price, the fee lines, the total and the deposit, as decimal strings in the company's currency; each line with its tax (`LineTax`, the rates of the check-in day) and the total's net and VAT (`tax`). Dates the home cannot take answer 400 with the rule's code (`min_nights`, `max_nights`, `arrival_day`, `notice`, `advance`, `unavailable`, `guests`) and every broken rule in `errors`. 404 unless the listing is a published holiday home and the company has bookings switched on. 409 `conflict` when no tax rate of the stay's category is in force on the check-in day.",
  access: { kind: 'public', scopes: ['read:listings'] },
  request: { params: slugParam, query: QuoteQuery },
  responses: { 200: json(QuoteSchema, 'The quote') },
});

const getQuote: Handler<typeof route> = async (c) => {
  c.header('Cache-Control', 'no-store');
  return c.json(await quoteStay(c.var.services, c.var.company, c.req.valid('param').slug, c.req.valid('query')), 200);
};

export const quote = createRouter().openapi(route, getQuote);

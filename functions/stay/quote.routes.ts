import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import { QuoteQuery, QuoteSchema, slugParam } from '../../schema/stay/bookings';
import { quoteOf, stayFacts } from './hold';
import { json } from '../../schema/common/api';

const route = defineRoute({
  method: 'get',
  path: '/listings/{slug}/quote',
  tags: ['Bookings'],
  summary: 'The price of a stay',
  description:
    "Each night's price, the fee lines, the total and the deposit, as decimal strings in the company's currency. Dates the home cannot take answer 400 with the rule's code (`min_nights`, `max_nights`, `arrival_day`, `notice`, `advance`, `unavailable`, `guests`) and every broken rule in `errors`. 404 unless the listing is a published holiday home and the company has bookings switched on.",
  access: { kind: 'public', scopes: ['read:listings'] },
  request: { params: slugParam, query: QuoteQuery },
  responses: { 200: json(QuoteSchema, 'The quote') },
});

export const quote = createRouter().openapi(route, async (c) => {
  const { slug } = c.req.valid('param');
  const { check_in, check_out, guests } = c.req.valid('query');
  const { db } = c.var.services;
  const stay = { checkIn: check_in, checkOut: check_out, guests };
  const now = new Date();
  // One statement: the home, its terms and seasons, the stay's taken nights.
  const facts = await stayFacts(db, c.var.company, slug, stay, now);
  const priced = quoteOf(c.var.company, facts, stay, now);
  c.header('Cache-Control', 'no-store');
  return c.json({ listing: facts.home.slug, check_in, check_out, guests, ...priced }, 200);
});

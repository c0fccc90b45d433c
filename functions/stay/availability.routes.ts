import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import { ifNoneMatch } from '../../lib/etag';
import type { Handler } from '../../lib/routes';
import { json } from '../../schema/common/api';
import { AvailabilityQuery, AvailabilitySchema, slugParam } from '../../schema/stay/bookings';
import { availabilityAnswer } from './availability';

const route = defineRoute({
  method: 'get',
  path: '/listings/{slug}/availability',
  tags: ['Bookings'],
  summary: "A holiday home's taken nights and rules",
  description:
    'The window is [from, to), at most 400 days; by default the year ahead. 404 unless the listing is a published holiday home and the company has bookings switched on. Answers carry an ETag and `Cache-Control: no-cache`: revalidate, a 304 is cheap, and no answer outlives a booking change.',
  access: { kind: 'public', scopes: ['read:listings'] },
  revalidate: true,
  request: { params: slugParam, query: AvailabilityQuery },
  responses: {
    200: json(AvailabilitySchema, 'Taken nights and rules'),
    304: { description: 'Not modified (If-None-Match)' },
  },
});

/** The answer (cached: availability.ts); 304 when the client holds its ETag. */
const getAvailability: Handler<typeof route> = async (c) => {
  const { slug } = c.req.valid('param');
  const entry = await availabilityAnswer(c.var.services, c.var.company, slug, c.req.valid('query'));
  const headers = { ETag: entry.etag, 'Cache-Control': 'no-cache' };
  if (ifNoneMatch(c.req.header('If-None-Match'), entry.etag)) return c.body(null, 304, headers);
  return c.body(entry.body, 200, { ...headers, 'Content-Type': 'application/json' });
};

export const availability = createRouter().openapi(route, getAvailability);

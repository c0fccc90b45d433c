import { z } from '@hono/zod-openapi';
import Big from 'big.js';
import { text } from './text';
import { listingTypes } from './columns';
import { queryBoolean, queryInteger } from './api';
import { date } from './homes';

/**
 * The filters of a listing search (issue 36): the query of `GET /listings` and `/listings/map` (schema/catalogue), and
 * what a saved search keeps (schema/forms): one definition, so both read a search alike.
 */

export const ListingTypeSchema = z.enum(listingTypes).openapi('ListingType');

const slugText = text().min(1).max(200);
const count = queryInteger(0, 1000);
/** A decimal in plain digits (a price in the company's currency, a size in square metres): kept as text, compared as numeric. */
const decimal = (what: string) =>
  text()
    .regex(/^[0-9]{1,12}(\.[0-9]{1,4})?$/, `${what}: a decimal number in plain digits (at most 12 before the point, 4 after).`)
    .openapi({ type: 'string', example: '1500000' });
/** Comma-separated decimal degrees, parsed once their pattern passed. */
const degrees = (n: number, example: string) =>
  text()
    .regex(
      new RegExp(`^-?[0-9]{1,3}(\\.[0-9]{1,10})?(,-?[0-9]{1,3}(\\.[0-9]{1,10})?){${n - 1}}$`),
      `${n} decimal degrees separated by commas, e.g. ${example}.`,
    )
    .transform((v) => v.split(',').map(Number))
    .openapi({ type: 'string', example });

/** Filters shared by the list and the map. Unknown parameters are refused. */
export const listingFilters = {
  type: ListingTypeSchema.optional(),
  area: slugText.optional().openapi({ description: 'A city or area slug (English or Arabic) from /areas.' }),
  project: slugText.optional().openapi({ description: 'A project slug (English or Arabic) from /areas.' }),
  property_type: text().min(1).max(100).optional().openapi({ description: 'A `value` from /filters.' }),
  bedrooms_min: count.optional(),
  bedrooms_max: count.optional(),
  guests_min: count.optional(),
  completion: z.enum(['ready', 'off_plan']).optional(),
  featured: queryBoolean.optional().openapi({ type: 'string', enum: ['true', 'false', '1', '0'] }),
  price_min: decimal('price_min').optional().openapi({ description: 'Lowest price (the listing’s own period), inclusive.' }),
  price_max: decimal('price_max').optional().openapi({ description: 'Highest price (the listing’s own period), inclusive.' }),
  bedrooms: count.optional().openapi({ description: 'Exactly this many bedrooms (0: a studio).' }),
  bathrooms: count.optional().openapi({ description: 'Exactly this many bathrooms.' }),
  size_min: decimal('size_min').optional().openapi({ description: 'Smallest size in square metres, inclusive.' }),
  size_max: decimal('size_max').optional().openapi({ description: 'Largest size in square metres, inclusive.' }),
  bbox: degrees(4, '55.10,25.05,55.20,25.12')
    .optional()
    .openapi({ description: 'min_lon,min_lat,max_lon,max_lat: listings whose shown point is inside (edges included).' }),
  near: degrees(2, '25.0805,55.1403')
    .optional()
    .openapi({ description: 'lat,lon: listings within radius_km of this point, each with its distance_km.' }),
  radius_km: decimal('radius_km')
    .optional()
    .openapi({ description: 'With near: the radius in kilometres, above 0 and at most 500 (default 5).' }),
  q: text()
    .max(200)
    .optional()
    .openapi({
      description:
        'Words, in Arabic or English: every word is found at the start of a word of the title, description, slug, city, ' +
        'area or project, or (five letters or more) one letter away. See "Search" in the API reference.',
    }),
  check_in: date.optional().openapi({
    description:
      'With check_out: only holiday homes free for every night by the rules a booking request meets (holds, bookings, ' +
      'blocks, turnover, minimum and maximum stay, arrival days, notice, advance, guests), each with its quote; ' +
      'price_min and price_max then apply to the quote’s total. See "Free dates" in the API reference.',
  }),
  check_out: date.optional().openapi({ description: 'With check_in: the day the stay ends (its last night is the day before).' }),
  guests: queryInteger(1, 1000)
    .optional()
    .openapi({ description: 'With check_in and check_out: how many guests stay (default 1).' }),
  sort: z
    .enum(['featured', 'newest', 'sort_order', 'relevance'])
    .optional()
    .openapi({
      description:
        'featured: featured first, then newest (the default without q); newest; sort_order: the company order; ' +
        'relevance: the best match of q first (the default with q; only with q).',
    }),
};

type Checked = {
  type?: string;
  check_in?: string;
  check_out?: string;
  guests?: number;
  bedrooms_min?: number;
  bedrooms_max?: number;
  q?: string;
  sort?: string;
  price_min?: string;
  price_max?: string;
  size_min?: string;
  size_max?: string;
  bbox?: number[];
  near?: number[];
  radius_km?: string;
};

/** The rules between filters (ranges in order, a box the right way round, dates together): a query's `superRefine`. */
export function checkListingFilters(q: Checked, ctx: z.RefinementCtx) {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (q.bedrooms_min !== undefined && q.bedrooms_max !== undefined && q.bedrooms_min > q.bedrooms_max) {
    issue('bedrooms_max', 'bedrooms_max must not be below bedrooms_min.');
  }
  const decimalText = (v?: string): v is string => v !== undefined && /^[0-9]{1,12}(\.[0-9]{1,4})?$/.test(v);
  if (decimalText(q.price_min) && decimalText(q.price_max) && new Big(q.price_min).gt(q.price_max)) {
    issue('price_max', 'price_max must not be below price_min.');
  }
  if (decimalText(q.size_min) && decimalText(q.size_max) && new Big(q.size_min).gt(q.size_max)) {
    issue('size_max', 'size_max must not be below size_min.');
  }
  const latitude = (v: number) => v >= -90 && v <= 90;
  const longitude = (v: number) => v >= -180 && v <= 180;
  // Only a value its pattern parsed (refinements also run beside a field's own issue).
  if (Array.isArray(q.bbox)) {
    const [minLon, minLat, maxLon, maxLat] = q.bbox as [number, number, number, number];
    if (![minLon, maxLon].every(longitude) || ![minLat, maxLat].every(latitude))
      issue('bbox', 'Longitudes run from -180 to 180 and latitudes from -90 to 90.');
    else if (minLon > maxLon || minLat > maxLat)
      issue('bbox', 'The box is inverted: give min_lon,min_lat,max_lon,max_lat (a box across the antimeridian is two).');
  }
  if (Array.isArray(q.near)) {
    const [lat, lon] = q.near as [number, number];
    if (!latitude(lat) || !longitude(lon))
      issue('near', 'lat,lon: a latitude from -90 to 90, then a longitude from -180 to 180.');
  }
  if (q.radius_km !== undefined) {
    if (q.near === undefined) issue('radius_km', 'radius_km is the radius around near: give near.');
    else if (decimalText(q.radius_km) && (Number(q.radius_km) <= 0 || Number(q.radius_km) > 500))
      issue('radius_km', 'radius_km is above 0 and at most 500.');
  }
  checkDates(q, issue);
  if (q.sort === 'relevance' && q.q === undefined) {
    ctx.addIssue({ code: 'custom', path: ['sort'], message: 'sort=relevance orders by the words of q: give q.' });
  }
}

/** Free dates: check_in and check_out together, in order, on holiday homes; guests only with them. */
function checkDates(q: Checked, issue: (path: string, message: string) => void) {
  const dates = q.check_in !== undefined || q.check_out !== undefined;
  if (q.check_in === undefined && q.check_out !== undefined) issue('check_in', 'check_in goes with check_out: give both.');
  else if (q.check_out === undefined && q.check_in !== undefined) issue('check_out', 'check_out goes with check_in: give both.');
  else if (q.check_in !== undefined && q.check_out !== undefined && q.check_out <= q.check_in)
    issue('check_out', 'check_out must be after check_in.');
  if (q.guests !== undefined && !dates)
    issue('guests', 'guests goes with check_in and check_out (without dates, guests_min filters by capacity).');
  if (dates && q.type !== undefined && q.type !== 'holiday_home')
    issue('type', 'Free dates are a holiday home’s: give type=holiday_home or no type.');
}

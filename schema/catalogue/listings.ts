import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { permitAuthorities } from '../common/permits';
import { checkListingFilters, ListingTypeSchema, listingFilters } from '../common/listing-filters';
import { LocalisedTextSchema, listOf, pageQuery } from '../common/api';
import { QuoteSchema } from '../common/quote';

/** The counts `facets` may ask for (issue 36). */
export const facetNames = ['type', 'area', 'bedrooms', 'price'] as const;
export type FacetName = (typeof facetNames)[number];

const facetsParam = text()
  .max(100)
  .superRefine((value, ctx) => {
    const names = value.split(',');
    const unknown = names.find((name) => !(facetNames as readonly string[]).includes(name));
    if (unknown !== undefined)
      ctx.addIssue({ code: 'custom', message: `Unknown facet "${unknown}": a comma list of ${facetNames.join(', ')}.` });
    else if (new Set(names).size < names.length) ctx.addIssue({ code: 'custom', message: 'Each facet is named once.' });
  })
  .transform((value) => value.split(',') as FacetName[])
  .openapi({
    type: 'string',
    example: 'type,area,bedrooms,price',
    description: 'Counts over the filtered listings: a comma list of type, area, bedrooms, price (see "Facets").',
  });

export const ListingsQuery = z
  .strictObject({ ...listingFilters, ...pageQuery, facets: facetsParam.optional() })
  .superRefine(checkListingFilters);
// Free dates are the list's (each home with its quote): the map's points have no quote.
const { check_in: _in, check_out: _out, guests: _guests, ...mapFilters } = listingFilters;
export const MapQuery = z
  .strictObject({
    ...mapFilters,
    ...pageQuery,
    cover: z.enum(['1', '0', 'true', 'false']).optional().openapi({ description: '1 adds each point’s first ready photo.' }),
  })
  .superRefine(checkListingFilters);

export const PriceSchema = z
  .object({
    amount: z.string().openapi({ example: '2450000.00' }),
    currency: z.string().openapi({ example: 'AED' }),
    period: z.enum(['total', 'year', 'month', 'night']),
  })
  .openapi('Price');

export const PhotoSchema = z
  .object({
    position: z.number().int(),
    alt: LocalisedTextSchema,
    sizes: z.record(z.string(), z.object({ url: z.string().url(), width: z.number().int() })),
  })
  .openapi('Photo');

export const CoordinatesSchema = z
  .object({
    latitude: z.number(),
    longitude: z.number(),
    precision: z.enum(['exact', 'approximate']),
    radius_m: z.number().int().optional().openapi({ description: 'For approximate points: draw a circle this wide.' }),
  })
  .openapi('Coordinates');

export const ListingPermitSchema = z
  .object({
    number: z.string(),
    authority: z.enum(permitAuthorities).openapi({
      description: 'dld: the Dubai Land Department’s Trakheesi advertising permit; dtcm: a Dubai holiday-home permit.',
    }),
    expires_on: z.string().openapi({ description: 'Its last valid day (YYYY-MM-DD, the company’s time zone).' }),
    verification_url: z.string().nullable().openapi({ description: 'The authority’s verification page (its QR code’s link).' }),
    status: z.enum(['valid', 'expired']).openapi({ description: 'expired once its last day has passed (scheduled work).' }),
  })
  .openapi('ListingPermit', { description: 'The advertising permit the law requires on the ad, where the market has one.' });

const placeSchema = z.object({ slug: LocalisedTextSchema, name: LocalisedTextSchema }).nullable();

export const ListingSummarySchema = z
  .object({
    id: z.string(),
    slug: LocalisedTextSchema,
    status: z.literal('published'),
    listing_type: ListingTypeSchema,
    title: LocalisedTextSchema,
    path: LocalisedTextSchema,
    price: PriceSchema.nullable().openapi({ description: 'null while the company hides prices.' }),
    property_type: z.string().nullable(),
    bedrooms: z.number().int().nullable(),
    bathrooms: z.number().int().nullable(),
    size_sqm: z.number().nullable(),
    max_guests: z.number().int().nullable(),
    completion: z.enum(['ready', 'off_plan']).nullable(),
    featured: z.boolean(),
    city: placeSchema,
    area: placeSchema,
    project: placeSchema,
    coordinates: CoordinatesSchema.nullable(),
    photos: z.array(PhotoSchema),
    permit: ListingPermitSchema.nullable(),
    published_at: z.string(),
    updated_at: z.string(),
    distance_km: z.number().optional().openapi({ description: 'With near: kilometres from that point to the shown point.' }),
    quote: QuoteSchema.optional().openapi({
      description: 'With check_in and check_out: the stay’s quote, as `GET /listings/{slug}/quote` gives it.',
    }),
  })
  .openapi('ListingSummary');

export const ListingSchema = ListingSummarySchema.omit({ distance_km: true, quote: true })
  .extend({
    description: LocalisedTextSchema,
    structured_data: z
      .object({ en: z.record(z.string(), z.unknown()), ar: z.record(z.string(), z.unknown()) })
      .openapi({ description: 'One schema.org RealEstateListing JSON-LD document per language.' }),
  })
  .openapi('Listing');

export const WithdrawnListingSchema = z
  .object({ slug: LocalisedTextSchema, status: z.literal('withdrawn') })
  .openapi('WithdrawnListing');

export const MapPointSchema = z
  .object({
    id: z.string(),
    slug: LocalisedTextSchema,
    listing_type: ListingTypeSchema,
    title: LocalisedTextSchema,
    path: LocalisedTextSchema,
    price: PriceSchema.nullable(),
    coordinates: CoordinatesSchema,
    cover: PhotoSchema.nullable().optional(),
    distance_km: z.number().optional().openapi({ description: 'With near: kilometres from that point to the shown point.' }),
  })
  .openapi('MapPoint');

const facetCount = z.number().int();
export const ListingFacetsSchema = z
  .object({
    type: z.array(z.object({ value: ListingTypeSchema, count: facetCount })).optional(),
    area: z
      .array(
        z.object({
          value: z.string().openapi({ description: 'The area’s slug (en).' }),
          name: LocalisedTextSchema,
          count: facetCount,
        }),
      )
      .optional(),
    bedrooms: z
      .array(z.object({ value: z.number().int().openapi({ description: '0: a studio.' }), count: facetCount }))
      .optional(),
    price: z
      .array(
        z.object({
          type: ListingTypeSchema,
          min: z.string(),
          max: z.string().nullable().openapi({ description: 'Excluded (min is included); null: no upper edge.' }),
          count: facetCount,
        }),
      )
      .optional()
      .openapi({ description: 'Bands per type (settings.search_price_bands), in each listing’s own period.' }),
  })
  .openapi('ListingFacets', {
    description: 'The facets asked for; no zero counts; most first, then by value.',
  });

export const ListingListSchema = z
  .object({
    results: z.array(ListingSummarySchema),
    next_cursor: z.string().nullable().openapi({ description: 'Pass as `cursor` for the next page; null on the last.' }),
    facets: ListingFacetsSchema.optional(),
  })
  .openapi('ListingList');
export const MapPointListSchema = listOf(MapPointSchema, 'MapPointList');

const typeCounts = z.object({ sale: z.number().int(), lease: z.number().int(), holiday_home: z.number().int() }).partial();

export const AreaSchema = z
  .object({
    kind: z.enum(['city', 'area', 'project']),
    slug: LocalisedTextSchema,
    name: LocalisedTextSchema,
    parent: z.string().nullable().openapi({ description: 'English slug of the parent city or area.' }),
    counts: typeCounts.openapi({ description: 'Published listings per enabled type.' }),
  })
  .openapi('Area');

const option = z.object({ value: z.string(), label: LocalisedTextSchema, count: z.number().int() });
export const FilterGroupSchema = z
  .object({
    type: ListingTypeSchema,
    count: z.number().int(),
    property_types: z.array(option),
    areas: z.array(option),
    projects: z.array(option),
    bedrooms: z.array(z.object({ value: z.number().int(), count: z.number().int() })),
    completion: z.array(z.object({ value: z.enum(['ready', 'off_plan']), count: z.number().int() })),
  })
  .openapi('FilterGroup');

export const TeamProfileSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    role: LocalisedTextSchema,
    bio: LocalisedTextSchema,
    photo_url: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    languages: z.array(z.string()),
  })
  .openapi('TeamProfile');

export const SitemapEntrySchema = z
  .object({
    paths: LocalisedTextSchema,
    lastmod: z.string(),
    alternates: z.array(z.object({ hreflang: z.string(), path: z.string() })),
  })
  .openapi('SitemapEntry');

export const ServiceSchema = z.object({ key: z.string(), name: LocalisedTextSchema, kind: z.string() }).openapi('Service');

export const allOf = <T extends z.ZodType>(item: T, name: string) =>
  z.object({ results: z.array(item), next_cursor: z.null() }).openapi(name);

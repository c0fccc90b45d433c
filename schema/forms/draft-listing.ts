import { z } from '@hono/zod-openapi';

/** A draft listing made from a listing request (POST /admin/v1/companies/{id}/leads/{reference}/draft-listing). */
export const DraftListingSchema = z
  .object({
    lead: z.string().openapi({ description: 'The listing request it was made from.' }),
    id: z.string(),
    slug: z.string().openapi({ description: 'English slug: `request-` and the lead reference in lower case.' }),
    status: z.literal('draft'),
    listing_type: z.enum(['sale', 'lease', 'holiday_home']),
    title: z.object({ en: z.string(), ar: z.string() }),
    city: z.string().nullable().openapi({ description: 'English slug.' }),
    area: z.string().nullable(),
    project: z.string().nullable(),
    property_type: z.string().nullable(),
    bedrooms: z.number().int().nullable(),
    bathrooms: z.number().int().nullable(),
    size_sqm: z.number().nullable(),
    price: z.string().nullable().openapi({ description: 'Decimal string; set only together with price_period.' }),
    price_period: z.enum(['total', 'year', 'month', 'night']).nullable(),
    warnings: z.array(z.object({ code: z.string(), message: z.string() })).openapi({
      description: '`answer_not_used` (an answer no longer valid, e.g. an area removed since), `price_incomplete`.',
    }),
  })
  .openapi('AdminDraftListing');

import { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/app';
import { keyringOf } from '../../lib/crypto-jwe';
import { json, problem } from '../../schema/common/api';
import { findCompany } from '../../lib/admin-route';
import { draftListingFromLead } from './draft-listing';
import { adminRoute, companyParam } from '../../lib/admin-route';

const params = companyParam.extend({ reference: z.string().regex(/^L-[0-9A-Z]{10}$/) });

const DraftListingSchema = z
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

const draft = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/leads/{reference}/draft-listing',
  summary: 'Turn a listing request (a lead whose service is of kind listing_request) into a draft listing',
  description:
    "Built from the request's details: purpose (required, the listing type), area (with its city), property_type, bedrooms, bathrooms, size_sqm, price with price_period. Once per lead; publish it with POST …/listings/{slug}/publish.",
  request: { params },
  responses: {
    201: json(DraftListingSchema, 'Created'),
    404: problem('Unknown company or lead'),
    409: problem('Not a listing request, erased, already drafted, or without a valid purpose (`conflict`).'),
  },
});

export const listingRequestsAdmin = createRouter().openapi(draft, async (c) => {
  const { company_id, reference } = c.req.valid('param');
  const { db, config } = c.var.services;
  const made = await db.transaction().execute(async (trx) => {
    await findCompany(trx, company_id);
    return draftListingFromLead(trx, company_id, reference, keyringOf(config));
  });
  const { listing, places, warnings } = made;
  return c.json(
    {
      lead: made.lead,
      id: listing.id,
      slug: listing.slug_en,
      status: 'draft' as const,
      listing_type: listing.listing_type,
      title: made.title,
      city: places.city?.slug_en ?? null,
      area: places.area?.slug_en ?? null,
      project: places.project?.slug_en ?? null,
      property_type: listing.property_type,
      bedrooms: listing.bedrooms,
      bathrooms: listing.bathrooms,
      size_sqm: listing.size_sqm === null ? null : Number(listing.size_sqm),
      price: listing.price === null ? null : String(listing.price),
      price_period: listing.price_period,
      warnings,
    },
    201,
  );
});

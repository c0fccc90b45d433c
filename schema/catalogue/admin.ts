import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { decimalInput } from '../common/money';
import { instant, LocalisedTextInput } from '../common/api';
import { HomeTermsInput } from '../common/homes';
import { listingTypes } from '../common/columns';
import { furnishings, offPlanSaleTypes, PermitInput, PortalsInput } from '../common/permits';
import { taxCategoryOverride } from '../common/tax';

/** The operator's catalogue import: areas, property types, services, team and listings of one company. */

const slugEn = text()
  .min(1)
  .max(200)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Lower-case letters, digits and hyphens.');
const slugAny = text()
  .min(1)
  .max(200)
  .regex(/^[^\s/?#%]+$/, 'A slug without spaces, "/", "?", "#" or "%".');
const localisedSlug = z.strictObject({ en: slugEn, ar: slugAny.optional() });
/** `/listings/map` is a route, so "map" can never be a listing's slug. */
const notReserved = (slug: string) => slug !== 'map';
const listingSlug = z.strictObject({
  en: slugEn.refine(notReserved, '"map" is reserved (GET /listings/map).'),
  ar: slugAny.refine(notReserved, '"map" is reserved (GET /listings/map).').optional(),
});
const decimal = decimalInput;

export const ImportAreaInput = z.strictObject({
  kind: z.enum(['city', 'area', 'project']),
  slug: localisedSlug,
  name: LocalisedTextInput,
  parent: slugEn.nullable().default(null),
});

/**
 * Bayut's off-plan details (its help centre, "What are the guidelines for posting an Off-plan listing?"): the sale
 * type, with the share of the DLD fee the developer waives for a new sale, or the original price and the amount paid
 * for a resale (each required of its type there, so here).
 */
const OffPlanInput = z
  .strictObject({
    sale_type: z.enum(offPlanSaleTypes).openapi({ description: 'new: from the developer; resale: by a buyer before handover.' }),
    dld_waiver: z
      .number()
      .int()
      .min(0)
      .max(100)
      .nullable()
      .default(null)
      .openapi({ description: 'A new sale: the share of the DLD registration fee waived, in percent.' }),
    original_price: decimal.nullable().default(null).openapi({ description: 'A resale: the price first paid.' }),
    amount_paid: decimal.nullable().default(null).openapi({ description: 'A resale: how much of it is paid so far.' }),
  })
  .superRefine((o, ctx) => {
    const required = (field: 'dld_waiver' | 'original_price' | 'amount_paid', present: boolean) => {
      if (!present) ctx.addIssue({ code: 'custom', path: [field], message: `A ${o.sale_type} off-plan sale needs ${field}.` });
    };
    const refused = (field: 'dld_waiver' | 'original_price' | 'amount_paid') => {
      if (o[field] !== null) ctx.addIssue({ code: 'custom', path: [field], message: 'Only for the other sale type.' });
    };
    if (o.sale_type === 'new') {
      required('dld_waiver', o.dld_waiver !== null);
      refused('original_price');
      refused('amount_paid');
    } else {
      required('original_price', o.original_price !== null);
      required('amount_paid', o.amount_paid !== null);
      refused('dld_waiver');
    }
  });

/** A listing's fields as the import takes them (the integrations' write, schema/catalogue/integration.ts, takes them too). */
export const ImportListingFields = z.strictObject({
  slug: listingSlug,
  listing_type: z.enum(listingTypes),
  status: z.enum(['draft', 'published', 'withdrawn']).default('draft'),
  title: LocalisedTextInput,
  description: z.strictObject({ en: text().max(20000), ar: text().max(20000).optional() }).optional(),
  price: decimal.nullable().default(null),
  price_period: z.enum(['total', 'year', 'month', 'night']).nullable().default(null),
  property_type: text().max(100).nullable().default(null),
  bedrooms: z.number().int().min(0).max(100).nullable().default(null),
  bathrooms: z.number().int().min(0).max(100).nullable().default(null),
  size_sqm: z.number().positive().max(1e7).nullable().default(null),
  max_guests: z.number().int().min(1).max(1000).nullable().default(null),
  city: slugEn.nullable().default(null),
  area: slugEn.nullable().default(null),
  project: slugEn.nullable().default(null),
  completion: z.enum(['ready', 'off_plan']).nullable().default(null),
  featured: z.boolean().default(false),
  sort_order: z.number().int().min(0).max(1e9).default(0),
  published_at: instant.nullable().default(null),
  location: z
    .strictObject({
      latitude: z.number().min(-90).max(90),
      longitude: z.number().min(-180).max(180),
      precision: z.enum(['exact', 'approximate']),
    })
    .nullable()
    .default(null),
  photos: z
    .array(
      z.strictObject({
        key: text()
          .min(1)
          .max(300)
          .regex(/^[A-Za-z0-9._\-/]+$/),
        alt: z.strictObject({ en: text().max(300), ar: text().max(300).optional() }),
        ready: z.boolean().default(true),
      }),
    )
    .max(100)
    .default([]),
  booking: HomeTermsInput.optional().openapi({
    description: "A holiday home's booking terms and seasons; left out, the home keeps its current terms.",
  }),
  permit: PermitInput.nullable().default(null).openapi({ description: 'The listing’s advertising permit.' }),
  agent: z
    .string()
    .min(1)
    .max(200)
    .nullable()
    .default(null)
    .openapi({ description: 'The name of the team profile (in this document or already stored) that handles it.' }),
  portals: PortalsInput.default({}),
  furnished: z.enum(furnishings).nullable().default(null),
  tax_category: taxCategoryOverride.default(null).openapi({
    description:
      'The category of its rent (a holiday home’s: its stays), over the company’s default for the kind (docs/api-reference.md, "Tax"); null: that default.',
  }),
  cheques: z
    .number()
    .int()
    .min(1)
    .max(12)
    .nullable()
    .default(null)
    .openapi({ description: 'A lease: the rent is paid in this many cheques.' }),
  service_charge: decimal
    .nullable()
    .default(null)
    .openapi({ description: 'The yearly service charge, in the company’s currency.' }),
  off_plan: OffPlanInput.nullable()
    .default(null)
    .openapi({ description: 'An off-plan listing’s sale details (Bayut requires them of off-plan listings).' }),
});

/** The checks across a listing's fields, the same for the import and the integrations' write. */
export function checkListingFields(
  l: Pick<
    z.infer<typeof ImportListingFields>,
    'cheques' | 'listing_type' | 'off_plan' | 'completion' | 'price' | 'price_period' | 'booking'
  >,
  ctx: z.RefinementCtx,
): void {
  if (l.cheques !== null && l.listing_type !== 'lease') {
    ctx.addIssue({ code: 'custom', path: ['cheques'], message: 'Only a lease is paid in cheques.' });
  }
  if (l.off_plan !== null && l.completion !== 'off_plan') {
    ctx.addIssue({ code: 'custom', path: ['off_plan'], message: 'Only an off-plan listing (completion off_plan) has them.' });
  }
  if ((l.price === null) !== (l.price_period === null)) {
    ctx.addIssue({ code: 'custom', path: ['price_period'], message: 'price and price_period go together.' });
  }
  if (l.booking && l.listing_type !== 'holiday_home') {
    ctx.addIssue({ code: 'custom', path: ['booking'], message: 'Only holiday homes take bookings.' });
  }
}

export const ImportListingInput = ImportListingFields.superRefine(checkListingFields);

export const TeamProfileInput = z.strictObject({
  name: text().min(1).max(200),
  role: z.strictObject({ en: text().max(200), ar: text().max(200).optional() }).default({ en: '' }),
  bio: z.strictObject({ en: text().max(5000), ar: text().max(5000).optional() }).default({ en: '' }),
  photo_url: text().url().nullable().default(null),
  email: text().email().nullable().default(null),
  phone: text().max(40).nullable().default(null),
  licence_number: text()
    .min(1)
    .max(64)
    .nullable()
    .default(null)
    .openapi({ description: 'The agent’s licence number: in Dubai the BRN (RERA’s Broker Registration Number).' }),
  languages: z.array(text().regex(/^[a-z]{2}$/)).default([]),
  published: z.boolean().default(true),
  position: z.number().int().min(0).default(0),
});

export const ServiceInput = z.strictObject({
  key: text()
    .regex(/^[a-z0-9][a-z0-9_-]*$/)
    .max(100),
  name: LocalisedTextInput,
  kind: text()
    .regex(/^[a-z0-9_]+$/)
    .max(100),
});

export const PropertyTypeInput = z.strictObject({
  value: text()
    .regex(/^[a-z0-9_-]+$/)
    .max(100),
  name: LocalisedTextInput,
});

export const CatalogueImportInput = z.strictObject({
  areas: z.array(ImportAreaInput).max(5000).default([]),
  property_types: z.array(PropertyTypeInput).max(500).default([]),
  services: z.array(ServiceInput).max(500).default([]),
  team: z.array(TeamProfileInput).max(1000).default([]),
  listings: z.array(ImportListingInput).max(5000).default([]),
});

/** The admin's change to a listing's advertising: its permit, its agent, the portals it goes to (PATCH). */
export const ListingAdvertisingInput = z
  .strictObject({
    permit: PermitInput.nullable().openapi({ description: 'The advertising permit; null removes it.' }),
    agent_id: z.string().uuid().nullable().openapi({ description: 'A team profile of the company; null: none.' }),
    portals: PortalsInput,
  })
  .partial()
  .openapi('ListingAdvertisingInput');

export type CatalogueImport = z.infer<typeof CatalogueImportInput>;
export type ImportListing = z.infer<typeof ImportListingInput>;

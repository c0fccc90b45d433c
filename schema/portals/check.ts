import { z } from '@hono/zod-openapi';
import { listOf, pageQuery, queryBoolean } from '../common/api';
import { listingTypes } from '../common/columns';

/**
 * The portal check (issue 25): for each listing, what keeps it off each portal's feed, so staff fix it before the
 * portal refuses it (docs/api-reference.md, "Portals and advertising permits").
 */
export const portalProblemCodes = [
  'permit_missing',
  'permit_expired',
  'permit_duplicate',
  'price_missing',
  'too_few_photos',
  'description_too_short',
  'agent_missing',
  'property_type_unknown',
  'location_missing',
  'size_missing',
  'offplan_details_missing',
] as const;
export type PortalProblemCode = (typeof portalProblemCodes)[number];

const PortalProblemSchema = z.object({ code: z.enum(portalProblemCodes), message: z.string() }).openapi('PortalProblem');

const PortalStateSchema = z
  .object({
    in_feed: z.boolean().openapi({ description: 'Whether the portal’s feed carries the listing now.' }),
    opted_in: z.boolean().openapi({ description: 'Whether the listing is sent to this portal (its advertising).' }),
    problems: z.array(PortalProblemSchema).openapi({ description: 'What the portal would refuse it for; empty: nothing.' }),
  })
  .openapi('PortalState');

export const PortalCheckSchema = z
  .object({
    id: z.string(),
    slug: z.string().openapi({ description: 'The English slug.' }),
    listing_type: z.enum(listingTypes),
    status: z.enum(['draft', 'published']).openapi({ description: 'Drafts are checked too: what to fix before publishing.' }),
    portals: z.object({ propertyfinder: PortalStateSchema, bayut: PortalStateSchema }),
  })
  .openapi('PortalCheck');

export const PortalCheckListSchema = listOf(PortalCheckSchema, 'PortalCheckList');

export const PortalCheckQuery = z.strictObject({
  ...pageQuery,
  blocked: queryBoolean
    .optional()
    .openapi({ type: 'string', enum: ['true', 'false', '1', '0'], description: 'true: only listings with a problem.' }),
});

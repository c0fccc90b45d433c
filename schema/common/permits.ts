import { z } from '@hono/zod-openapi';
import { calendarDate } from './api';

/**
 * Advertising permits (docs/api-reference.md, "Portals and advertising permits"): shared by the catalogue (import,
 * the admin's listing advertising, the public listing) and the portals (feeds, the portal check).
 */

/**
 * Who issued a permit. `dld`: the Dubai Land Department's advertising permit (Trakheesi, RERA), which every listing
 * for sale or lease in Dubai carries with its QR code; `dtcm`: Dubai's holiday-home permit, issued by the Department
 * of Economy and Tourism (formerly DTCM), which holiday homes carry instead; `other`: another market's permit.
 */
export const permitAuthorities = ['dld', 'dtcm', 'other'] as const;
export type PermitAuthority = (typeof permitAuthorities)[number];

/** The markets whose permit rules the platform knows; a company without one needs no permit on any listing. */
export const markets = ['dubai'] as const;
export type Market = (typeof markets)[number];

export const PermitInput = z
  .strictObject({
    number: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9][A-Za-z0-9/-]*$/, 'Letters, digits, "-" and "/", as the authority issued it.')
      .openapi({ example: '7117361830' }),
    authority: z.enum(permitAuthorities).openapi({ description: 'dld: Trakheesi (sale, lease); dtcm: holiday homes.' }),
    expires_on: calendarDate.openapi({ description: 'The last day the permit is valid, in the company’s time zone.' }),
    verification_url: z
      .string()
      .max(2000)
      .url()
      .refine((url) => url.startsWith('https://'), 'An https URL.')
      .nullable()
      .default(null)
      .openapi({ description: 'Where the authority verifies the permit (the Trakheesi QR code’s link).' }),
  })
  .openapi('PermitInput');
export type Permit = z.infer<typeof PermitInput>;

/**
 * What the portals' feeds carry besides the catalogue's own fields (migration 0033): whether the property comes
 * furnished (both portals' `Yes`, `Partly`, `No`), and for an off-plan listing, Bayut's sale type (`New`: from the
 * developer, with the share of the DLD fee waived; `Resale`: with the original price and the amount paid).
 */
export const furnishings = ['furnished', 'partly_furnished', 'unfurnished'] as const;
export type Furnishing = (typeof furnishings)[number];
export const offPlanSaleTypes = ['new', 'resale'] as const;
export type OffPlanSaleType = (typeof offPlanSaleTypes)[number];

/** The portals a company's listings are fed to. */
export const portals = ['propertyfinder', 'bayut'] as const;
export type Portal = (typeof portals)[number];

export const PortalsInput = z
  .strictObject({ propertyfinder: z.boolean(), bayut: z.boolean() })
  .partial()
  .openapi({ description: 'Whether the listing goes to each portal’s feed (default true); those left out keep theirs.' });

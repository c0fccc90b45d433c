import { type RawBuilder, sql } from 'kysely';
import type { Portal } from '../../schema/common/permits';
import type { PortalProblemCode } from '../../schema/portals/check';
import type { Company } from '../../schema/platform/db';

/**
 * What each portal refuses a listing without (docs/api-reference.md, "Portals and advertising permits"): one
 * definition, as SQL over a listing `l`, shared by the feeds (which leave such a listing out, and count what they
 * carry before they stream it) and the portal check (which names what is missing).
 *
 * The minimums are ours where the portals publish none: Property Finder's feed format requires at least one photo
 * and a description, its quality score wants 750 to 2,000 characters; Bayut publishes no numbers. We ask 3 ready
 * photos and a 200-character English description of both (docs: the numbers and why).
 */
export const portalMinimums: Record<Portal, { photos: number; description: number }> = {
  propertyfinder: { photos: 3, description: 200 },
  bayut: { photos: 3, description: 200 },
};

/**
 * The property types each portal knows, by the company's `property_type` value (lower case; `-` and ` ` read as
 * `_`): Property Finder's two-letter codes (its feed format's list), Bayut's type names. A type neither knows keeps
 * the listing off that portal (`property_type_unknown`).
 */
export const propertyTypes: Record<Portal, Record<string, string>> = {
  propertyfinder: {
    apartment: 'AP',
    flat: 'AP',
    studio: 'AP',
    villa: 'VH',
    house: 'VH',
    townhouse: 'TH',
    penthouse: 'PH',
    duplex: 'DX',
    bungalow: 'BW',
    compound: 'CD',
    hotel_apartment: 'HA',
    land: 'LP',
    plot: 'LP',
    full_floor: 'FF',
    half_floor: 'HF',
    whole_building: 'WB',
    bulk_units: 'BU',
    office: 'OF',
    business_centre: 'BC',
    co_working: 'CW',
    retail: 'RE',
    shop: 'SH',
    showroom: 'SR',
    restaurant: 'RT',
    warehouse: 'WH',
    storage: 'ST',
    factory: 'FA',
    farm: 'FM',
    labour_camp: 'LC',
    staff_accommodation: 'SA',
  },
  bayut: {
    apartment: 'Apartment',
    flat: 'Apartment',
    studio: 'Apartment',
    duplex: 'Apartment',
    loft: 'Loft',
    villa: 'Villa',
    house: 'Villa',
    bungalow: 'Villa',
    compound: 'Villa',
    townhouse: 'Townhouse',
    penthouse: 'Penthouse',
    hotel_apartment: 'Hotel Apartment',
    land: 'Residential Land',
    plot: 'Residential Land',
    full_floor: 'Residential Floor',
    whole_building: 'Residential Building',
    office: 'Office',
    business_centre: 'Office',
    co_working: 'Office',
    retail: 'Shop',
    shop: 'Shop',
    showroom: 'Shop',
    restaurant: 'Shop',
    warehouse: 'Warehouse',
    storage: 'Warehouse',
    factory: 'Factory',
    labour_camp: 'Labour Camp',
    staff_accommodation: 'Labour Camp',
  },
};

/** Commercial property types: Property Finder's commercial offering types (CS, CR) instead of residential (RS, RR). */
export const commercialTypes = new Set(['OF', 'BC', 'CW', 'RE', 'SH', 'SR', 'RT', 'WH', 'ST', 'FA', 'LC', 'SA']);

/** A property type value as the mapping reads it. */
export const typeKey = (value: string) =>
  value
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

/** The SQL of {@link typeKey}, over a listing's `property_type`. */
const typeKeySql = sql<string>`regexp_replace(lower(btrim(l.property_type)), '[\\s-]+', '_', 'g')`;

/**
 * The permit a listing must carry in the company's market: in Dubai a Trakheesi permit (`dld`) for sale and lease,
 * a holiday-home permit (`dtcm`) for holiday homes; elsewhere none. As SQL: the authority, or null.
 */
function requiredAuthority(company: Company): RawBuilder<string | null> {
  if (company.settings?.market !== 'dubai') return sql<null>`null::text`;
  return sql<string>`case l.listing_type when 'holiday_home' then 'dtcm' else 'dld' end`;
}

/** Each problem of `portal` as a boolean SQL expression over a listing `l`, on the company's `today`. */
export function problemSql(company: Company, portal: Portal, today: string): Record<PortalProblemCode, RawBuilder<boolean>> {
  const required = requiredAuthority(company);
  const minimum = portalMinimums[portal];
  const hasPermit = sql<boolean>`(l.permit_number is not null and l.permit_authority = ${required})`;
  const types = Object.keys(propertyTypes[portal]);
  const problems: Record<PortalProblemCode, RawBuilder<boolean>> = {
    permit_missing: sql<boolean>`(${required} is not null and not ${hasPermit})`,
    permit_expired: sql<boolean>`(${hasPermit} and (l.permit_expired or l.permit_expires_on < ${today}::date))`,
    // Property Finder's rule (its help centre): a permit another live listing of the same company and category
    // already carries, unless the property is off-plan. The listing published first keeps it.
    permit_duplicate: sql<boolean>`(${hasPermit} and l.completion is distinct from 'off_plan' and exists (
      select from listings m
       where m.company_id = l.company_id and m.listing_type = l.listing_type and m.permit_number = l.permit_number
         and m.status = 'published' and m.id <> l.id
         and (l.status <> 'published' or (m.published_at, m.id) < (l.published_at, l.id))))`,
    price_missing: sql<boolean>`(l.price is null or l.price_period is null)`,
    too_few_photos: sql<boolean>`((select count(*) from listing_photos p where p.listing_id = l.id and p.ready) < ${minimum.photos})`,
    description_too_short: sql<boolean>`(char_length(btrim(coalesce(l.description->>'en', ''))) < ${minimum.description})`,
    agent_missing: sql<boolean>`not exists (
      select from team_profiles t
       where t.id = l.agent_id and t.company_id = l.company_id and t.email is not null and t.phone is not null)`,
    property_type_unknown: sql<boolean>`(l.property_type is null or ${typeKeySql} <> all (${sql.val(types)}::text[]))`,
    location_missing: sql<boolean>`(l.city_id is null or l.area_id is null)`,
    // Property Finder's format requires the floor area (`size`); Bayut's takes it when given.
    size_missing: portal === 'propertyfinder' ? sql<boolean>`(l.size_sqm is null)` : sql<boolean>`false`,
    // Bayut requires an off-plan listing's sale type (`offplanDetails_saleType`); what each type needs with it the
    // database holds (migration 0033).
    offplan_details_missing:
      portal === 'bayut' ? sql<boolean>`(l.completion = 'off_plan' and l.offplan_sale_type is null)` : sql<boolean>`false`,
  };
  // Never null (a market without permits compares with null): a problem is there or not.
  for (const code of Object.keys(problems) as PortalProblemCode[])
    problems[code] = sql<boolean>`coalesce(${problems[code]}, false)`;
  return problems;
}

/** Whether a listing goes to the portal: published, opted in, and none of the portal's problems. */
export function inFeedSql(company: Company, portal: Portal, today: string): RawBuilder<boolean> {
  const problems = Object.values(problemSql(company, portal, today));
  return sql<boolean>`(l.status = 'published' and not (${portal}::text = any (l.portals_off)) and not (${sql.join(problems, sql` or `)}))`;
}

/** What the check says of each problem. */
export const problemMessages: Record<PortalProblemCode, (portal: Portal) => string> = {
  permit_missing: () => 'The market requires an advertising permit of the right authority: set one.',
  permit_expired: () => 'The advertising permit has ended: renew it and set the new one.',
  permit_duplicate: () => 'Another live listing of the company in the same category already carries this permit.',
  price_missing: () => 'The listing has no price.',
  too_few_photos: (portal) => `The portal needs at least ${portalMinimums[portal].photos} ready photos.`,
  description_too_short: (portal) =>
    `The portal needs an English description of at least ${portalMinimums[portal].description} characters.`,
  agent_missing: () => 'The listing needs an agent (a team profile) with an email and a phone.',
  property_type_unknown: () => 'The portal has no category for the listing’s property type.',
  location_missing: () => 'The portal needs the listing’s city and area (its community).',
  size_missing: () => 'The portal needs the floor area (size_sqm).',
  offplan_details_missing: () => 'The portal needs an off-plan listing’s sale details (off_plan: its sale type).',
};

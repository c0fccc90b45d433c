import type { Executor } from '../../lib/db/index';
import type { FieldError } from '../../lib/errors';
import type { DetailValue } from '../../lib/details';
import { fitsDigits, storedDigits } from '../../lib/money';
import type { LocalisedText } from '../../schema/common/columns';

/**
 * The answers of a request to sell or manage a property (a lead whose service is of kind `listing_request`)
 * that a draft listing is built from. Each is optional; when present it must be valid, so staff can turn the
 * request into a draft without guessing. Every other key of `details` stays an ordinary answer for staff.
 */
export const purposes = ['sale', 'lease', 'holiday_home'] as const;
export const pricePeriods = ['night', 'month', 'year', 'total'] as const;

export type Purpose = (typeof purposes)[number];
export type PricePeriod = (typeof pricePeriods)[number];

export type ListingRequestAnswers = {
  purpose?: Purpose;
  area?: string;
  property_type?: string;
  bedrooms?: number;
  bathrooms?: number;
  size_sqm?: number;
  price?: number;
  price_period?: PricePeriod;
};

type Answer = keyof ListingRequestAnswers;

const oneOf =
  <T extends string>(values: readonly T[]) =>
  (v: DetailValue): v is T =>
    typeof v === 'string' && (values as readonly string[]).includes(v);
const count = (v: DetailValue) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 100;
// A plain decimal number below `max` with at most `decimals` after the point (sizes: numeric(10, 2); prices are kept
// to the company's currency digits, checked in listingRequestProblems).
const amount = (max: number, decimals: number) => (v: DetailValue) =>
  typeof v === 'number' && v >= 0 && v < max && /^\d+(\.\d+)?$/.test(String(v)) && fitsDigits(String(v), decimals);

const shapes: Record<Exclude<Answer, 'area' | 'property_type'>, { valid: (v: DetailValue) => boolean; message: string }> = {
  purpose: { valid: oneOf(purposes), message: 'One of sale, lease or holiday_home.' },
  bedrooms: { valid: count, message: 'A whole number from 0 (a studio) to 100.' },
  bathrooms: { valid: count, message: 'A whole number from 0 to 100.' },
  size_sqm: { valid: (v) => amount(1e7, 2)(v) && v !== 0, message: 'A number of square metres above 0, at most 2 decimals.' },
  price: { valid: amount(1e12, 4), message: "The owner's expected price: a number of at least 0 and below 10^12." },
  price_period: { valid: oneOf(pricePeriods), message: 'One of night, month, year or total.' },
};

export const listingRequestKeys: readonly Answer[] = [...Object.keys(shapes), 'area', 'property_type'] as Answer[];

/** An area (city, area or project) of a company, as GET /areas lists them. */
export type Place = {
  id: string;
  kind: 'city' | 'area' | 'project';
  parent_id: string | null;
  slug_en: string;
  name: LocalisedText;
};
/** A property type of a company, as GET /filters lists them. */
export type PropertyType = { value: string; name: LocalisedText };

/**
 * How a listing request's references are found: an area by its English or Arabic slug, a property type by its value;
 * and the company's currency, whose minor digits bound the price's.
 */
export type ReferenceLookup = {
  area: (slug: string) => Promise<Place | undefined> | Place | undefined;
  property_type: (value: string) => Promise<PropertyType | undefined> | PropertyType | undefined;
  currency: () => Promise<string> | string;
};

/** The company's areas and property types read from the database, one query per reference looked up. */
export function storedReferences(executor: Executor, companyId: string): ReferenceLookup {
  return {
    area: (slug) =>
      executor
        .selectFrom('areas')
        .select(['id', 'kind', 'parent_id', 'slug_en', 'name'])
        .where('company_id', '=', companyId)
        .where((eb) => eb.or([eb('slug_en', '=', slug), eb('slug_ar', '=', slug)]))
        .executeTakeFirst() as Promise<Place | undefined>,
    property_type: (value) =>
      executor
        .selectFrom('property_types')
        .select(['value', 'name'])
        .where('company_id', '=', companyId)
        .where('value', '=', value)
        .executeTakeFirst(),
    currency: async () =>
      (await executor.selectFrom('companies').select('currency').where('id', '=', companyId).executeTakeFirstOrThrow()).currency,
  };
}

/** The same lookups over a company's areas (with `slug_ar`) and property types already read. */
export function knownReferences(
  areas: Array<Place & { slug_ar: string | null }>,
  types: PropertyType[],
  currency: string,
): ReferenceLookup {
  return {
    area: (slug) => areas.find((a) => a.slug_en === slug || a.slug_ar === slug),
    property_type: (value) => types.find((t) => t.value === value),
    currency: () => currency,
  };
}

/**
 * The refusals of a listing request's answers, each at `details.<key>`: `invalid_value` for a wrong shape,
 * `unknown_reference` for an area or property type the company does not have. Keys in `skip` (already
 * refused for their content) are not checked again, so each key has one problem at most.
 */
export async function listingRequestProblems(
  lookup: ReferenceLookup,
  details: Record<string, DetailValue>,
  skip: ReadonlySet<string> = new Set(),
): Promise<FieldError[]> {
  const problems: FieldError[] = [];
  const refuse = (key: string, code: string, message: string) => problems.push({ path: `details.${key}`, code, message });
  for (const [key, rule] of Object.entries(shapes)) {
    const value = details[key];
    if (value !== undefined && !skip.has(key) && !rule.valid(value)) refuse(key, 'invalid_value', rule.message);
  }
  const price = details.price;
  if (typeof price === 'number' && !skip.has('price') && shapes.price.valid(price)) {
    const currency = await lookup.currency();
    const digits = storedDigits(currency);
    if (!fitsDigits(String(price), digits))
      refuse('price', 'currency_digits', `At most ${digits} digits after the point in ${currency}.`);
  }
  const messages = {
    area: 'An area slug from GET /areas, in English or Arabic.',
    property_type: 'A property type value from GET /filters.',
  } as const;
  for (const [key, message] of Object.entries(messages) as Array<[keyof typeof messages, string]>) {
    const value = details[key];
    if (value === undefined || skip.has(key)) continue;
    if (typeof value !== 'string') refuse(key, 'invalid_value', message);
    else if (!(await lookup[key](value))) refuse(key, 'unknown_reference', `Unknown: "${value}". ${message}`);
  }
  return problems;
}

/** The listing-request answers of details already checked by listingRequestProblems. */
export function listingRequestAnswers(details: Record<string, unknown>): ListingRequestAnswers {
  return Object.fromEntries(listingRequestKeys.filter((key) => details[key] !== undefined).map((key) => [key, details[key]]));
}

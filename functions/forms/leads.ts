import { type Keyring, encryptJson } from '../../lib/crypto-jwe';
import type { Executor } from '../../lib/db/index';
import { ApiError, type FieldError } from '../../lib/errors';
import type { LeadInputValue } from '../../schema/forms/leads';
import { emailOrPhoneMessage } from '../../schema/common/people';
import { type DetailValue, detailsProblems } from '../../lib/details';

/** An enquiry to record: the form's fields plus what the caller's path knows. */
export type NewLead = LeadInputValue & {
  /** The keys details are encrypted with (from the configuration). */
  keyring: Keyring | undefined;
  /** A browser form's allowed origins: the page is kept only on one of them. Undefined (a server): any http(s) page. */
  origins?: readonly string[];
  /** The visitor's address, kept with the consent (browser forms); null for a server's post. */
  consentAddress?: string | null;
};

/**
 * The page of the form, without query, fragment or credentials; not kept (null) when it is not an http(s)
 * address or, for a browser form, not on one of the key's origins. An enquiry is never refused for its page.
 */
export function cleanPage(page: string | undefined, origins?: readonly string[]): string | null {
  if (page === undefined) return null;
  let url: URL;
  try {
    url = new URL(page);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (origins && !origins.includes(url.origin)) return null;
  return `${url.origin}${url.pathname}`;
}

/** A lead's type, for the publishable key's list: a service of kind `listing_request` makes one; else an enquiry. */
export async function leadTypeOf(
  executor: Executor,
  companyId: string,
  service: string | undefined,
): Promise<'enquiry' | 'listing_request'> {
  if (service === undefined) return 'enquiry';
  const row = await executor
    .selectFrom('services')
    .select('kind')
    .where('company_id', '=', companyId)
    .where('key', '=', service)
    .executeTakeFirst();
  return row?.kind === 'listing_request' ? 'listing_request' : 'enquiry';
}

/**
 * The rules of every enquiry, whichever path sent it; each refusal names its field. A listing request (its
 * service is of kind `listing_request`) also has the answers a draft listing is built from checked.
 */
export async function leadProblems(
  executor: Executor,
  companyId: string,
  input: LeadInputValue,
  leadType?: 'enquiry' | 'listing_request',
): Promise<FieldError[]> {
  const problems: FieldError[] = [];
  if (input.consent !== true) problems.push({ path: 'consent', code: 'consent_required', message: 'Consent must be true.' });
  if (!input.consent_version?.trim()) {
    problems.push({ path: 'consent_version', code: 'consent_required', message: 'The privacy notice version is required.' });
  }
  if (!input.email && !input.phone) {
    problems.push({ path: 'email', code: 'custom', message: emailOrPhoneMessage });
  }
  const details = input.details ?? {};
  const refused = detailsProblems(details);
  problems.push(...refused);
  if (
    Object.keys(details).length > 0 &&
    (leadType ?? (await leadTypeOf(executor, companyId, input.service))) === 'listing_request'
  ) {
    const skip = new Set(refused.map((p) => p.path.slice('details.'.length)));
    problems.push(...(await listingRequestProblems(executor, companyId, details, skip)));
  }
  return problems;
}

/** Refuses (400, every problem at once) an enquiry that breaks a rule; records nothing. `leadType`: when known. */
export async function checkLead(
  executor: Executor,
  companyId: string,
  input: LeadInputValue,
  leadType?: 'enquiry' | 'listing_request',
): Promise<void> {
  const problems = await leadProblems(executor, companyId, input, leadType);
  if (problems.length > 0) {
    throw new ApiError('invalid_request', 'The enquiry is invalid.', { errors: problems });
  }
}

/**
 * An enquiry's details encrypted, before anything is written: without a key an enquiry with details is refused as
 * a whole (503). Null without details.
 */
export async function encryptedDetails(input: NewLead): Promise<string | null> {
  const details = input.details && Object.keys(input.details).length > 0 ? input.details : undefined;
  return details ? await encryptJson(input.keyring, details) : null;
}

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
// The catalogue keeps prices as numeric(14, 2) and sizes as numeric(10, 2).
const amount = (max: number) => (v: DetailValue) =>
  typeof v === 'number' && v >= 0 && v < max && /^\d+(\.\d{1,2})?$/.test(String(v));

const shapes: Record<Exclude<Answer, 'area' | 'property_type'>, { valid: (v: DetailValue) => boolean; message: string }> = {
  purpose: { valid: oneOf(purposes), message: 'One of sale, lease or holiday_home.' },
  bedrooms: { valid: count, message: 'A whole number from 0 (a studio) to 100.' },
  bathrooms: { valid: count, message: 'A whole number from 0 to 100.' },
  size_sqm: { valid: (v) => amount(1e7)(v) && v !== 0, message: 'A number of square metres above 0, at most 2 decimals.' },
  price: { valid: amount(1e12), message: "The owner's expected price: a number of at least 0, at most 2 decimals." },
  price_period: { valid: oneOf(pricePeriods), message: 'One of night, month, year or total.' },
};

export const listingRequestKeys: readonly Answer[] = [...Object.keys(shapes), 'area', 'property_type'] as Answer[];

/** An area (city, area or project) of the company by its English or Arabic slug, as GET /areas lists them. */
export function areaBySlug(executor: Executor, companyId: string, slug: string) {
  return executor
    .selectFrom('areas')
    .select(['id', 'kind', 'parent_id', 'slug_en', 'name'])
    .where('company_id', '=', companyId)
    .where((eb) => eb.or([eb('slug_en', '=', slug), eb('slug_ar', '=', slug)]))
    .executeTakeFirst();
}

/** A property type of the company by its `value`, as GET /filters lists them. */
export function propertyTypeByValue(executor: Executor, companyId: string, value: string) {
  return executor
    .selectFrom('property_types')
    .select(['value', 'name'])
    .where('company_id', '=', companyId)
    .where('value', '=', value)
    .executeTakeFirst();
}

/**
 * The refusals of a listing request's answers, each at `details.<key>`: `invalid_value` for a wrong shape,
 * `unknown_reference` for an area or property type the company does not have. Keys in `skip` (already
 * refused for their content) are not checked again, so each key has one problem at most.
 */
export async function listingRequestProblems(
  executor: Executor,
  companyId: string,
  details: Record<string, DetailValue>,
  skip: ReadonlySet<string> = new Set(),
): Promise<FieldError[]> {
  const problems: FieldError[] = [];
  const refuse = (key: string, code: string, message: string) => problems.push({ path: `details.${key}`, code, message });
  for (const [key, rule] of Object.entries(shapes)) {
    const value = details[key];
    if (value !== undefined && !skip.has(key) && !rule.valid(value)) refuse(key, 'invalid_value', rule.message);
  }
  const lookups = {
    area: { find: areaBySlug, message: 'An area slug from GET /areas, in English or Arabic.' },
    property_type: { find: propertyTypeByValue, message: 'A property type value from GET /filters.' },
  } as const;
  for (const [key, { find, message }] of Object.entries(lookups)) {
    const value = details[key];
    if (value === undefined || skip.has(key)) continue;
    if (typeof value !== 'string') refuse(key, 'invalid_value', message);
    else if (!(await find(executor, companyId, value))) refuse(key, 'unknown_reference', `Unknown: "${value}". ${message}`);
  }
  return problems;
}

/** The listing-request answers of details already checked by listingRequestProblems. */
export function listingRequestAnswers(details: Record<string, unknown>): ListingRequestAnswers {
  return Object.fromEntries(listingRequestKeys.filter((key) => details[key] !== undefined).map((key) => [key, details[key]]));
}

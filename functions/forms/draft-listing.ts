import { sql } from 'kysely';
import { auditCte } from '../../lib/audit';
import { type Keyring, decryptJson } from '../../lib/crypto-jwe';
import type { Db } from '../../lib/db/index';
import type { DetailValue } from '../../lib/details';
import { ApiError, notFound } from '../../lib/errors';
import { listingSearchText } from '../../lib/listing-search';
import { localised } from '../../lib/localise';
import { formatAmount } from '../../lib/money';
import { type Stale, stale, writeOnce } from '../../lib/write';
import type { Selectable } from 'kysely';
import type { Database } from '../../schema/db';
import {
  knownReferences,
  type ListingRequestAnswers,
  listingRequestAnswers,
  listingRequestProblems,
  type Place,
  type PropertyType,
  type Purpose,
} from './listing-requests';
import { stamp } from '../../lib/clock';

type Warning = { code: string; message: string };
type ListingRow = Selectable<Database['listings']>;

/**
 * What a draft is made from, in one read statement: the company (404 when unknown), the lead, the kind of its
 * service, the draft it may already have, and the company's areas and property types (the answers are sealed: which of
 * them the request names is known only once they are opened). The catalogue's size bounds the last two.
 */
async function readDraftSource(db: Db, companyId: string, reference: string) {
  const { rows } = await sql<{
    currency: string | null;
    lead: { id: string; reference: string; service: string | null; details_jwe: string | null; erased: boolean } | null;
    service_kind: string | null;
    draft: string | null;
    areas: Array<Place & { slug_ar: string | null }>;
    types: PropertyType[];
  }>`
    with lead as (
      select id, reference, service, details_jwe, erased from leads where company_id = ${companyId} and reference = ${reference}
    )
    select (select currency from companies where id = ${companyId}) as currency,
      (select to_jsonb(lead) from lead) as lead,
      (select s.kind from services s, lead where s.company_id = ${companyId} and s.key = lead.service) as service_kind,
      (select l.slug_en from listings l, lead where l.from_lead_id = lead.id) as draft,
      coalesce((select jsonb_agg(jsonb_build_object('id', a.id, 'kind', a.kind, 'parent_id', a.parent_id,
        'slug_en', a.slug_en, 'slug_ar', a.slug_ar, 'name', a.name)) from areas a where a.company_id = ${companyId}), '[]') as areas,
      coalesce((select jsonb_agg(jsonb_build_object('value', t.value, 'name', t.name)) from property_types t
        where t.company_id = ${companyId}), '[]') as types`.execute(db);
  const read = rows[0]!;
  if (read.currency === null) throw notFound(`The company ${companyId}`);
  const lead = read.lead;
  if (!lead) throw notFound(`The lead ${reference}`);
  if (lead.erased) throw new ApiError('conflict', `The lead ${lead.reference} is erased: its answers are gone.`);
  if (read.service_kind !== 'listing_request') {
    throw new ApiError(
      'conflict',
      `The lead ${lead.reference} is not a listing request: its service (${lead.service ?? 'none'}) is not of kind listing_request.`,
    );
  }
  if (read.draft !== null)
    throw new ApiError('conflict', `The lead ${lead.reference} already has its draft listing "${read.draft}".`);
  return { lead, areas: read.areas, types: read.types, currency: read.currency };
}

/** The city, area and project a place stands for: an area's parent is its city, a project's its area. */
function placesOf(areas: Place[], place: Place | undefined) {
  const chain: Place[] = [];
  for (let at: Place | undefined = place; at && chain.length < 3; ) {
    chain.push(at);
    const parentId: string | null = at.parent_id;
    at = parentId === null ? undefined : areas.find((a) => a.id === parentId);
  }
  const of = (kind: Place['kind']) => chain.find((p) => p.kind === kind) ?? null;
  return { city: of('city'), area: of('area'), project: of('project') };
}

const purposeText: Record<Purpose, { en: string; ar: string }> = {
  sale: { en: 'for sale', ar: 'للبيع' },
  lease: { en: 'for rent', ar: 'للإيجار' },
  holiday_home: { en: 'for holiday rental', ar: 'للإيجار السياحي' },
};

/** "2-bedroom apartment for sale in Dubai Marina" / "شقة 2 غرف نوم للبيع في دبي مارينا": a draft's first title. */
export function draftTitle(
  answers: ListingRequestAnswers & { purpose: Purpose },
  type: { en: string; ar: string } | undefined,
  place: { en: string; ar: string } | undefined,
): { en: string; ar: string } {
  const n = answers.bedrooms;
  const studioType = answers.property_type === 'studio';
  const roomsEn = n === undefined || (n === 0 && studioType) ? '' : n === 0 ? 'studio' : `${n}-bedroom`;
  const roomsAr = n === undefined || studioType ? '' : n === 0 ? 'استوديو' : `${n} غرف نوم`;
  const en = [roomsEn, type?.en.toLowerCase() ?? 'property', purposeText[answers.purpose].en, place ? `in ${place.en}` : '']
    .filter(Boolean)
    .join(' ');
  const ar = [type?.ar ?? 'عقار', roomsAr, purposeText[answers.purpose].ar, place ? `في ${place.ar}` : '']
    .filter(Boolean)
    .join(' ');
  return { en: en.charAt(0).toUpperCase() + en.slice(1), ar };
}

/**
 * Turns a listing request into a draft listing: the lead's details are decrypted, checked again (an answer no longer
 * valid, such as an area removed since, is left out with a warning), and a `draft` listing is created with the slug
 * `request-<lead reference>`, linked to its lead, and audited. `purpose` is required: it is the listing's type. One
 * read statement, then one write statement guarded by the lead (still there, not erased); a second draft of the lead
 * is refused by the database (one listing per `from_lead_id`) and then answered 409 from the read.
 */
export function draftListing(db: Db, companyId: string, reference: string, keyring: Keyring | undefined) {
  return writeOnce(() => draftAttempt(db, companyId, reference, keyring));
}

async function draftAttempt(db: Db, companyId: string, reference: string, keyring: Keyring | undefined) {
  const { lead, areas, types, currency } = await readDraftSource(db, companyId, reference);
  const details =
    lead.details_jwe === null ? {} : ((await decryptJson(keyring, lead.details_jwe)) as Record<string, DetailValue>);
  // An answer checked again: the price's digits too (the company's currency may have changed since).
  const lookup = knownReferences(areas, types, currency);
  const problems = await listingRequestProblems(lookup, details);
  const warnings: Warning[] = problems.map((p) => ({ code: 'answer_not_used', message: `${p.path}: ${p.message}` }));
  const unusable = new Set(problems.map((p) => p.path.slice('details.'.length)));
  const answers = Object.fromEntries(
    Object.entries(listingRequestAnswers(details)).filter(([key]) => !unusable.has(key)),
  ) as ListingRequestAnswers;
  const { purpose } = answers;
  if (purpose === undefined) {
    throw new ApiError(
      'conflict',
      `The lead ${reference} has no valid purpose (sale, lease or holiday_home): a draft needs its type.`,
    );
  }
  const area = answers.area === undefined ? undefined : await lookup.area(answers.area);
  const places = placesOf(areas, area);
  const type = answers.property_type === undefined ? undefined : await lookup.property_type(answers.property_type);
  const priced = answers.price !== undefined && answers.price_period !== undefined;
  if (!priced && (answers.price !== undefined || answers.price_period !== undefined)) {
    warnings.push({ code: 'price_incomplete', message: 'A price is kept only with its price_period: neither was used.' });
  }
  const title = draftTitle({ ...answers, purpose }, type && localised(type.name), area && localised(area.name));
  const listingId = crypto.randomUUID();
  const slug = `request-${lead.reference.toLowerCase()}`;
  const values = {
    id: listingId,
    company_id: companyId,
    slug_en: slug,
    listing_type: purpose,
    status: 'draft',
    title: JSON.stringify(title),
    description: JSON.stringify({}),
    price: priced ? formatAmount(String(answers.price), currency) : null,
    price_period: priced ? (answers.price_period ?? null) : null,
    property_type: answers.property_type ?? null,
    bedrooms: answers.bedrooms ?? null,
    bathrooms: answers.bathrooms ?? null,
    size_sqm: answers.size_sqm === undefined ? null : String(answers.size_sqm),
    city_id: places.city?.id ?? null,
    area_id: places.area?.id ?? null,
    project_id: places.project?.id ?? null,
    from_lead_id: lead.id,
    search_text: listingSearchText({
      title,
      description: null,
      slug_en: slug,
      slug_ar: null,
      places: [places.city, places.area, places.project].map((p) => p && { slug_ar: null, ...p }),
    }),
    updated_at: stamp,
  } as const;
  const insert = db
    .insertInto('listings')
    .columns(Object.keys(values) as Array<keyof typeof values>)
    .expression((eb) =>
      eb
        .selectFrom('leads')
        .select(Object.entries(values).map(([column, value]) => sql.val(value).as(column)) as never)
        .where('id', '=', lead.id)
        .where('erased', '=', false),
    )
    .returningAll();
  const audited = {
    actor: 'admin',
    action: 'listing_request.drafted',
    subject: 'reference',
    details: { listing_id: listingId, slug },
  };
  const { rows } = await sql<ListingRow>`
    with changed as (${insert}),
    audit_source as (select company_id, ${lead.reference}::text as reference from changed),
    ${auditCte('audited', 'audit_source', audited)}
    select * from changed`.execute(db);
  const listing = rows[0];
  if (!listing) return stale as Stale;
  return { listing, lead: lead.reference, places, title, warnings, currency };
}

import { writeAudit } from '../../lib/audit';
import { type Keyring, decryptJson } from '../../lib/crypto-jwe';
import type { Db, Executor, Trx } from '../../lib/db/index';
import { findCompany } from '../../lib/admin-route';
import { ApiError, notFound } from '../../lib/errors';
import { localised } from '../../lib/localise';
import type { LocalisedText } from '../../schema/common/columns';
import type { DetailValue } from '../../lib/details';
import {
  areaBySlug,
  type ListingRequestAnswers,
  listingRequestAnswers,
  listingRequestProblems,
  propertyTypeByValue,
  type Purpose,
} from './listing-requests';

type Warning = { code: string; message: string };
type Place = { id: string; kind: 'city' | 'area' | 'project'; parent_id: string | null; slug_en: string; name: LocalisedText };

/** The lead, locked: two requests for its draft at once are made one after the other. */
async function lockedLead(trx: Trx, companyId: string, reference: string) {
  const lead = await trx
    .selectFrom('leads')
    .select(['id', 'reference', 'service', 'details_jwe', 'erased'])
    .where('company_id', '=', companyId)
    .where('reference', '=', reference)
    .forUpdate()
    .executeTakeFirst();
  if (!lead) throw notFound(`The lead ${reference}`);
  return lead;
}

/** Refuses (409) a lead that is not a listing request, is erased, or already has its draft. */
async function refuseUnlessDraftable(trx: Trx, companyId: string, lead: Awaited<ReturnType<typeof lockedLead>>) {
  if (lead.erased) throw new ApiError('conflict', `The lead ${lead.reference} is erased: its answers are gone.`);
  const service =
    lead.service === null
      ? undefined
      : await trx
          .selectFrom('services')
          .select('kind')
          .where('company_id', '=', companyId)
          .where('key', '=', lead.service)
          .executeTakeFirst();
  if (service?.kind !== 'listing_request') {
    throw new ApiError(
      'conflict',
      `The lead ${lead.reference} is not a listing request: its service (${lead.service ?? 'none'}) is not of kind listing_request.`,
    );
  }
  const draft = await trx.selectFrom('listings').select('slug_en').where('from_lead_id', '=', lead.id).executeTakeFirst();
  if (draft) throw new ApiError('conflict', `The lead ${lead.reference} already has its draft listing "${draft.slug_en}".`);
}

/** The city, area and project a place stands for: an area's parent is its city, a project's its area. */
async function placesOf(executor: Executor, companyId: string, place: Place | undefined) {
  const chain: Place[] = [];
  for (let at: Place | undefined = place; at && chain.length < 3; ) {
    chain.push(at);
    const parentId: string | null = at.parent_id;
    at =
      parentId === null
        ? undefined
        : await executor
            .selectFrom('areas')
            .select(['id', 'kind', 'parent_id', 'slug_en', 'name'])
            .where('company_id', '=', companyId)
            .where('id', '=', parentId)
            .executeTakeFirst();
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
 * Turns a listing request into a draft listing, in the caller's transaction: the lead's details are decrypted,
 * checked again (an answer no longer valid, such as an area removed since, is left out with a warning), and a
 * `draft` listing is created with the slug `request-<lead reference>`, linked to its lead, and audited.
 * `purpose` is required: it is the listing's type.
 */
export async function draftListingFromLead(
  trx: Trx,
  companyId: string,
  reference: string,
  keyring: Keyring | undefined,
  now: Date,
) {
  const lead = await lockedLead(trx, companyId, reference);
  await refuseUnlessDraftable(trx, companyId, lead);
  const details =
    lead.details_jwe === null ? {} : ((await decryptJson(keyring, lead.details_jwe)) as Record<string, DetailValue>);
  const problems = await listingRequestProblems(trx, companyId, details);
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
  const area = answers.area === undefined ? undefined : await areaBySlug(trx, companyId, answers.area);
  const places = await placesOf(trx, companyId, area);
  const type = answers.property_type === undefined ? undefined : await propertyTypeByValue(trx, companyId, answers.property_type);
  const priced = answers.price !== undefined && answers.price_period !== undefined;
  if (!priced && (answers.price !== undefined || answers.price_period !== undefined)) {
    warnings.push({ code: 'price_incomplete', message: 'A price is kept only with its price_period: neither was used.' });
  }
  const title = draftTitle({ ...answers, purpose }, type && localised(type.name), area && localised(area.name));
  const listing = await trx
    .insertInto('listings')
    .values({
      company_id: companyId,
      slug_en: `request-${lead.reference.toLowerCase()}`,
      listing_type: purpose,
      status: 'draft',
      title: JSON.stringify(title),
      description: JSON.stringify({}),
      price: priced ? String(answers.price) : null,
      price_period: priced ? (answers.price_period ?? null) : null,
      property_type: answers.property_type ?? null,
      bedrooms: answers.bedrooms ?? null,
      bathrooms: answers.bathrooms ?? null,
      size_sqm: answers.size_sqm === undefined ? null : String(answers.size_sqm),
      city_id: places.city?.id ?? null,
      area_id: places.area?.id ?? null,
      project_id: places.project?.id ?? null,
      from_lead_id: lead.id,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await writeAudit(trx, {
    companyId,
    actor: 'admin',
    action: 'listing_request.drafted',
    subject: lead.reference,
    details: { listing_id: listing.id, slug: listing.slug_en },
  });
  return { listing, lead: lead.reference, places, title, warnings };
}

/** The draft listing of a listing request, in one transaction (the company checked first: 404 when unknown). */
export function draftListing(db: Db, companyId: string, reference: string, keyring: Keyring | undefined, now: Date) {
  return db.transaction().execute(async (trx) => {
    await findCompany(trx, companyId);
    return draftListingFromLead(trx, companyId, reference, keyring, now);
  });
}

import { sql } from 'kysely';
import { type Keyring, encryptJson } from '../../lib/crypto-jwe';
import type { Executor, Trx } from '../../lib/db/index';
import { ApiError, type FieldError } from '../../lib/errors';
import { type CausedBy, recordEvent } from '../../lib/events';
import { newReference } from '../../lib/references';
import type { LeadInputValue } from '../../schema/forms/leads';
import type { Company } from '../../schema/platform/db';
import { matchOrCreateContact } from '../../lib/people';
import { detailsProblems } from '../../lib/details';
import { listingRequestProblems } from './listing-requests';

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

/** The listing by its English or Arabic slug (any status: the enquiry may be about a withdrawn home); unknown: null. */
async function listingIdOf(executor: Executor, companyId: string, slug: string | undefined): Promise<string | null> {
  if (slug === undefined) return null;
  const row = await executor
    .selectFrom('listings')
    .select('id')
    .where('company_id', '=', companyId)
    .where((eb) => eb.or([eb('slug_en', '=', slug), eb('slug_ar', '=', slug)]))
    .executeTakeFirst();
  return row?.id ?? null;
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
export async function leadProblems(executor: Executor, companyId: string, input: LeadInputValue): Promise<FieldError[]> {
  const problems: FieldError[] = [];
  if (input.consent !== true) problems.push({ path: 'consent', code: 'consent_required', message: 'Consent must be true.' });
  if (!input.consent_version?.trim()) {
    problems.push({ path: 'consent_version', code: 'consent_required', message: 'The privacy notice version is required.' });
  }
  if (!input.email && !input.phone) {
    problems.push({ path: 'email', code: 'custom', message: 'Send at least one of email or phone.' });
  }
  const details = input.details ?? {};
  const refused = detailsProblems(details);
  problems.push(...refused);
  if (Object.keys(details).length > 0 && (await leadTypeOf(executor, companyId, input.service)) === 'listing_request') {
    const skip = new Set(refused.map((p) => p.path.slice('details.'.length)));
    problems.push(...(await listingRequestProblems(executor, companyId, details, skip)));
  }
  return problems;
}

/** Refuses (400, every problem at once) an enquiry that breaks a rule; records nothing. */
export async function checkLead(executor: Executor, companyId: string, input: LeadInputValue): Promise<void> {
  const problems = await leadProblems(executor, companyId, input);
  if (problems.length > 0) {
    throw new ApiError('invalid_request', 'The enquiry is invalid.', { errors: problems });
  }
}

/**
 * Records an enquiry: the person is matched (or added) by email then phone, the details are encrypted, and
 * `lead.created` is recorded (with `contact.created` for a new person) in the caller's transaction. Run it
 * in `transactionRetryingConflict`: two enquiries of a new person at once meet on the contacts' unique index.
 */
export async function createLead(
  trx: Trx,
  company: Company,
  input: NewLead,
  causedBy: CausedBy,
): Promise<{ id: string; reference: string }> {
  await checkLead(trx, company.id, input);
  const details = input.details && Object.keys(input.details).length > 0 ? input.details : undefined;
  // Encrypted before anything is written: without a key the enquiry is refused as a whole (503).
  const detailsJwe = details ? await encryptJson(input.keyring, details) : null;
  const { contact, created, updated } = await matchOrCreateContact(
    trx,
    company,
    { name: input.name, email: input.email, phone: input.phone, language: input.language },
    causedBy,
  );
  const lead = await trx
    .insertInto('leads')
    .values({
      company_id: company.id,
      reference: newReference('L'),
      contact_id: contact.id,
      service: input.service ?? null,
      form: input.form ?? null,
      page: cleanPage(input.page, input.origins),
      listing_id: await listingIdOf(trx, company.id, input.listing),
      message: input.message ?? null,
      language: input.language ?? null,
      details_jwe: detailsJwe,
      consent_version: input.consent_version.trim(),
      consent_at: new Date(),
      consent_address: input.consentAddress ?? null,
      caused_by: causedBy,
    })
    .returning(['id', 'reference'])
    .executeTakeFirstOrThrow();
  await recordEvent(trx, {
    companyId: company.id,
    type: 'lead.created',
    causedBy,
    data: { reference: lead.reference, person: contact.reference },
  });
  // A matched person's answer now lists one more lead: it changed, so sync clients must see it again.
  if (!created) {
    await trx.updateTable('contacts').set({ updated_at: sql`clock_timestamp()` }).where('id', '=', contact.id).execute();
    if (!updated) {
      await recordEvent(trx, {
        companyId: company.id,
        type: 'contact.updated',
        causedBy,
        data: { reference: contact.reference },
      });
    }
  }
  return lead;
}

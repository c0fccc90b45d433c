import { actorOf } from '../../lib/audit';
import { type Keyring, encryptJson } from '../../lib/crypto-jwe';
import type { Db, Executor } from '../../lib/db/index';
import { detailsProblems } from '../../lib/details';
import type { Caller } from '../../lib/env';
import { ApiError, type FieldError } from '../../lib/errors';
import { emailOrPhoneMessage } from '../../schema/common/people';
import type { LeadInputValue } from '../../schema/forms/enquiries';
import type { Company } from '../../schema/platform/db';
import { type LeadFields, type LeadOrigin, type RecordedLead, recordLead } from './lead-record';
import { listingRequestProblems, storedReferences } from './listing-requests';

/**
 * The checks of an enquiry sent to POST /leads (a visitor's browser form or a company's server), before anything is
 * written: its rules (consent, email or phone, refused details, a listing request's answers), its type for the key,
 * and its fields as the lead record takes them (functions/forms/lead-record.ts writes it).
 */

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
    problems.push(...(await listingRequestProblems(storedReferences(executor, companyId), details, skip)));
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

/** A checked form's fields as recorded: its page cleaned (kept only on the key's origins), its consent stamped. */
export function formLeadFields(input: NewLead, detailsJwe: string | null): LeadFields {
  const { consent_version, consent, details, page, origins, consentAddress, keyring, ...fields } = input;
  return {
    ...fields,
    page: cleanPage(page, origins),
    detailsJwe,
    consent: { version: consent_version.trim(), address: consentAddress ?? null },
  };
}

/**
 * An enquiry from a form, checked: a visitor's (publishable key: matched as a visitor, source `website`) or a company
 * server's (server key: matched as a server, source `api`), with its details encrypted first (503 without a key).
 */
export async function recordFormLead(db: Db, company: Company, input: NewLead, caller: Caller, now: Date): Promise<RecordedLead> {
  const visitor = caller.kind === 'publishable';
  const fields = formLeadFields(input, await encryptedDetails(input));
  const origin: LeadOrigin = {
    rule: visitor ? 'visitor' : 'server',
    channel: 'form',
    source: visitor ? 'website' : 'api',
    sourceId: null,
    referral: null,
    occurredAt: now,
  };
  return recordLead(db, company, fields, origin, actorOf(caller), now);
}

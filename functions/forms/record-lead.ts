import { sql } from 'kysely';
import { type Db, isUniqueViolation } from '../../lib/db/index';
import { prepared } from '../../lib/db/prepared';
import { type CausedBy, eventCtes, newEventId } from '../../lib/events';
import { type PersonValues, personCtes, personValues, wantedPerson } from '../../lib/people';
import { newReference } from '../../lib/references';
import type { Company } from '../../schema/platform/db';
import { cleanPage, type NewLead } from './leads';

/** How many times the statement runs when it meets a concurrent add of the same person (each run sees more). */
const attempts = 3;

type LeadValues = PersonValues & {
  reference: string;
  service: string | null;
  form: string | null;
  page: string | null;
  listing: string | null;
  message: string | null;
  language: string | null;
  details_jwe: string | null;
  consent_version: string;
  consent_at: string;
  consent_address: string | null;
  lead_event: string;
};

/** The person (matched or added), the lead (its listing found by slug) and `lead.created`, in one statement. */
const insertLead = prepared<LeadValues, { id: string; reference: string }>(
  (p) => sql`
    with ${personCtes(p)},
    lead as (
      insert into leads (company_id, reference, contact_id, service, form, page, listing_id, message, language,
        details_jwe, consent_version, consent_at, consent_address, caused_by)
      select ${p.company_id}::uuid, ${p.reference}::text, person.id, ${p.service}::text, ${p.form}::text, ${p.page}::text,
        (select id from listings where company_id = ${p.company_id}::uuid
          and (slug_en = ${p.listing}::text or slug_ar = ${p.listing}::text) limit 1),
        ${p.message}::text, ${p.language}::text, ${p.details_jwe}::text, ${p.consent_version}::text,
        ${p.consent_at}::timestamptz, ${p.consent_address}::text, ${p.caused_by}::text
      from person
      returning id, reference
    ),
    ${eventCtes(
      'lead',
      p.lead_event,
      { companyId: p.company_id, type: 'lead.created', causedBy: p.caused_by },
      'lead',
      sql`jsonb_build_object('reference', happened.reference, 'person', (select reference from person))`,
    )}
    select id, reference from lead`,
);

/**
 * Records an enquiry, checked beforehand (checkLead) and its details encrypted (`detailsJwe`), in one statement
 * (one round trip, no BEGIN/COMMIT), whoever sends it: the person is matched by email then phone (locked, empty
 * fields filled, `contact.updated`) or added (`contact.created`) as lib/people.ts personCtes does, then the lead
 * (its listing found by slug in the same statement) and `lead.created`, each event with its deliveries. Two
 * enquiries of one new person at once meet on the contacts' unique indexes: the statement then runs again and
 * matches the person the other one added.
 */
export async function recordLead(
  db: Db,
  company: Company,
  input: NewLead,
  detailsJwe: string | null,
  causedBy: CausedBy,
  now: Date,
): Promise<{ id: string; reference: string }> {
  const wanted = wantedPerson(company, input);
  for (let attempt = 1; ; attempt++) {
    try {
      const [lead] = await insertLead(db, {
        ...personValues(company, wanted, causedBy, true),
        reference: newReference('L'),
        service: input.service ?? null,
        form: input.form ?? null,
        page: cleanPage(input.page, input.origins),
        listing: input.listing ?? null,
        message: input.message ?? null,
        language: input.language ?? null,
        details_jwe: detailsJwe,
        consent_version: input.consent_version.trim(),
        consent_at: now.toISOString(),
        consent_address: input.consentAddress ?? null,
        lead_event: newEventId(),
      });
      if (!lead) throw new Error('the lead was not stored');
      return lead;
    } catch (error) {
      if (attempt >= attempts || !isUniqueViolation(error)) throw error;
    }
  }
}

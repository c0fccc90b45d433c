import { sql } from 'kysely';
import type { Db } from '../../lib/db/index';
import { type CausedBy, eventCtes, newEventId } from '../../lib/events';
import { newContactRow, wantedPerson } from '../../lib/people';
import { newReference } from '../../lib/references';
import type { Company } from '../../schema/platform/db';
import { checkedDetails, cleanPage, type NewLead } from './leads';

/**
 * An enquiry of a person the company does not know yet, in one statement (one round trip, no BEGIN/COMMIT):
 * the person is added only if no live person of the company has the email or the phone (as createLead would
 * match them), then `contact.created`, the lead (its listing found by slug in the same statement) and
 * `lead.created`, each event with its deliveries. A known person makes it write nothing and answer undefined:
 * the caller then records the enquiry with createLead in a transaction, which matches and fills the person. A
 * concurrent add of the same person fails on the contacts' unique indexes, the statement as a whole; the
 * caller's transaction path then finds that person.
 */
export async function createLeadOfNewPerson(
  db: Db,
  company: Company,
  input: NewLead,
  causedBy: CausedBy,
): Promise<{ id: string; reference: string } | undefined> {
  const detailsJwe = await checkedDetails(db, company.id, input);
  const person = newContactRow(company.id, wantedPerson(company, input));
  const reference = newReference('L');
  const { rows } = await sql<{ id: string; reference: string }>`
    with person as (
      insert into contacts (company_id, reference, name, email, email_key, phone, phone_key, language, roles)
      select ${person.company_id}::uuid, ${person.reference}, ${person.name}, ${person.email}, ${person.email_key},
        ${person.phone}, ${person.phone_key}, ${person.language}, ${person.roles}::text[]
      where not exists (
        select from contacts
        where company_id = ${company.id}::uuid and not erased
          and (email_key = ${person.email_key} or phone_key = ${person.phone_key})
      )
      returning id, reference
    ),
    ${eventCtes('person', newEventId(), { companyId: company.id, type: 'contact.created', causedBy, data: { reference: person.reference } }, 'person')},
    lead as (
      insert into leads (company_id, reference, contact_id, service, form, page, listing_id, message, language,
        details_jwe, consent_version, consent_at, consent_address, caused_by)
      select ${company.id}::uuid, ${reference}, person.id, ${input.service ?? null}, ${input.form ?? null},
        ${cleanPage(input.page, input.origins)},
        (select id from listings where company_id = ${company.id}::uuid
          and (slug_en = ${input.listing ?? null} or slug_ar = ${input.listing ?? null}) limit 1),
        ${input.message ?? null}, ${input.language ?? null}, ${detailsJwe}, ${input.consent_version.trim()},
        ${new Date()}::timestamptz, ${input.consentAddress ?? null}, ${causedBy}
      from person
      returning id, reference
    ),
    ${eventCtes('lead', newEventId(), { companyId: company.id, type: 'lead.created', causedBy, data: { reference, person: person.reference } }, 'lead')}
    select id, reference from lead
  `.execute(db);
  return rows[0];
}

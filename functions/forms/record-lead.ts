import { sql } from 'kysely';
import { type Db, isUniqueViolation } from '../../lib/db/index';
import { type CausedBy, eventCtes, newEventId } from '../../lib/events';
import { personCtes, wantedPerson } from '../../lib/people';
import { newReference } from '../../lib/references';
import type { Company } from '../../schema/platform/db';
import { cleanPage, type NewLead } from './leads';

/** How many times the statement runs when it meets a concurrent add of the same person (each run sees more). */
const attempts = 3;

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
): Promise<{ id: string; reference: string }> {
  const wanted = wantedPerson(company, input);
  for (let attempt = 1; ; attempt++) {
    const reference = newReference('L');
    try {
      const { rows } = await sql<{ id: string; reference: string }>`
        with ${personCtes(company, wanted, causedBy, { touch: true })},
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
        ${eventCtes(
          'lead',
          newEventId(),
          { companyId: company.id, type: 'lead.created', causedBy, data: {} },
          'lead',
          sql`jsonb_build_object('reference', happened.reference, 'person', (select reference from person))`,
        )}
        select id, reference from lead
      `.execute(db);
      const lead = rows[0];
      if (!lead) throw new Error('the lead was not stored');
      return lead;
    } catch (error) {
      if (attempt >= attempts || !isUniqueViolation(error)) throw error;
    }
  }
}

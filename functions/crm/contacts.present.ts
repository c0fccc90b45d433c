import type { z } from '@hono/zod-openapi';
import { sql } from 'kysely';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { type ExternalLink, externalIdsColumn, shownExternalIds } from '../../lib/external-ids';
import type { ContactSchema } from '../../schema/crm/contacts';
import type { ContactRow } from '../../schema/crm/db';

export type ContactView = z.infer<typeof ContactSchema>;
type Duplicate = { person: string; reason: 'same_phone'; since: string };
/** A contact's row as shown: with its leads' references, its external ids and its possible duplicates (one row). */
export type ContactRecord = ContactRow & {
  lead_references: string[];
  external: ExternalLink[];
  possible_duplicates: Duplicate[];
};

/** A company's contacts with their leads' references and external ids (subqueries: one query for a whole page). */
export function selectContacts(executor: Executor, companyId: string) {
  return executor
    .selectFrom('contacts')
    .selectAll('contacts')
    .select([
      sql<string[]>`array(select l.reference from leads l where l.contact_id = contacts.id order by l.created_at, l.id)`.as(
        'lead_references',
      ),
      externalIdsColumn('contact', 'contacts.id').as('external'),
      sql<
        Duplicate[]
      >`coalesce((select json_agg(json_build_object('person', o.reference, 'reason', d.reason, 'since', d.created_at)
        order by d.created_at, o.reference) from contact_duplicates d join contacts o on o.id = d.duplicate_id
        where d.contact_id = contacts.id), '[]')`.as('possible_duplicates'),
    ])
    .where('contacts.company_id', '=', companyId);
}

/** A contact as the API shows it. */
export function presentContact(row: ContactRecord): ContactView {
  return {
    reference: row.reference,
    name: row.name,
    email: row.email,
    phone: row.phone,
    language: row.language,
    trn: row.trn,
    roles: row.roles,
    leads: row.lead_references,
    possible_duplicates: row.possible_duplicates.map((d) => ({ person: d.person, reason: d.reason, since: iso(d.since) })),
    external: shownExternalIds(row.external),
    erased: row.erased,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

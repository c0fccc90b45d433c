import type { z } from '@hono/zod-openapi';
import { sql } from 'kysely';
import type { Executor } from '../../lib/db/index';
import type { ContactSchema } from '../../schema/crm/contacts';
import type { ContactRow } from '../../schema/crm/db';
import { iso } from '../../lib/dates';
import { externalIdsOf } from '../../lib/external-ids';

export type ContactView = z.infer<typeof ContactSchema>;
type ContactRecord = ContactRow & { lead_references: string[] };

/** A company's contacts with their leads' references (an array subquery: one query for a whole page). */
export function selectContacts(executor: Executor, companyId: string) {
  return executor
    .selectFrom('contacts')
    .selectAll('contacts')
    .select(
      sql<string[]>`array(select l.reference from leads l where l.contact_id = contacts.id order by l.created_at, l.id)`.as(
        'lead_references',
      ),
    )
    .where('contacts.company_id', '=', companyId);
}

/** Shapes a page of contacts; their external ids come in one more query for the whole page. */
export async function presentContacts(executor: Executor, rows: readonly ContactRecord[]): Promise<ContactView[]> {
  const external = await externalIdsOf(
    executor,
    'contact',
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    reference: row.reference,
    name: row.name,
    email: row.email,
    phone: row.phone,
    language: row.language,
    roles: row.roles,
    leads: row.lead_references,
    external: external.get(row.id) ?? [],
    erased: row.erased,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  }));
}

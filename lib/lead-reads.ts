import type { z } from '@hono/zod-openapi';
import { type Keyring, decryptJson } from './crypto-jwe';
import type { Executor } from './db/index';
import type { LeadRow } from '../schema/crm/db';
import type { LeadSchema } from '../schema/common/lead-shape';
import { type ExternalLink, externalIdsColumn, shownExternalIds } from './external-ids';
import { iso } from './dates';

export type LeadView = z.infer<typeof LeadSchema>;
/** A lead's row as shown: with its person's reference, its listing's English slug and its external ids. */
export type LeadRecord = LeadRow & { person: string | null; listing_slug: string | null; external: ExternalLink[] };

/** A company's leads with their person's reference, listing's English slug and external ids (one query per page). */
export function selectLeads(executor: Executor, companyId: string) {
  return executor
    .selectFrom('leads')
    .leftJoin('contacts as person', 'person.id', 'leads.contact_id')
    .leftJoin('listings as listing', 'listing.id', 'leads.listing_id')
    .selectAll('leads')
    .select([
      'person.reference as person',
      'listing.slug_en as listing_slug',
      externalIdsColumn('lead', 'leads.id').as('external'),
    ])
    .where('leads.company_id', '=', companyId);
}

/** Shapes a page of leads, without a query: details decrypted (CPU only). */
export async function presentLeads(rows: readonly LeadRecord[], keyring: Keyring | undefined): Promise<LeadView[]> {
  const details = await Promise.all(
    rows.map((row) =>
      row.details_jwe === null ? null : (decryptJson(keyring, row.details_jwe) as Promise<Record<string, unknown>>),
    ),
  );
  return rows.map((row, i) => {
    const created = new Date(row.created_at);
    const answered = row.first_answered_at === null ? null : new Date(row.first_answered_at);
    return {
      reference: row.reference,
      person: row.person,
      status: row.status,
      assignee: row.assignee_id,
      department: row.department_key,
      next_action: row.next_action === null ? null : { text: row.next_action, due_at: iso(row.next_action_at) },
      first_answered_at: iso(answered),
      first_answer_seconds: answered === null ? null : Math.max(0, Math.floor((answered.getTime() - created.getTime()) / 1000)),
      escalated_at: iso(row.escalated_at),
      service: row.service,
      form: row.form,
      page: row.page,
      listing: row.listing_slug,
      message: row.message,
      language: row.language,
      details: details[i] ?? null,
      sent: { name: row.sent_name, email: row.sent_email, phone: row.sent_phone, listing: row.sent_listing },
      channel: row.channel,
      source: row.source,
      source_id: row.source_id,
      referral: row.referral,
      consent:
        row.consent_version === null || row.consent_at === null
          ? null
          : { version: row.consent_version, given_at: iso(row.consent_at) },
      external: shownExternalIds(row.external),
      erased: row.erased,
      created_at: iso(created),
      updated_at: iso(row.updated_at),
    };
  });
}

/** One lead as the API shows it, read after a write. */
export async function leadView(
  executor: Executor,
  companyId: string,
  id: string,
  keyring: Keyring | undefined,
): Promise<LeadView> {
  const row = await selectLeads(executor, companyId).where('leads.id', '=', id).executeTakeFirstOrThrow();
  const [view] = await presentLeads([row], keyring);
  return view as LeadView;
}

import { sql } from 'kysely';
import type { Db, Trx } from '../../lib/db/index';
import { type CausedBy, recordEvent } from '../../lib/events';
import { forgetKeptAnswers } from '../../lib/idempotency';

/**
 * Erases a person and their leads for good (a privacy request, or the retention rule): personal fields
 * emptied, lead details and free text that can hold personal data removed (messages, pages, notes, activity
 * bodies, task titles), `erased: true`. Their booking requests lose the guest's message, language and consent
 * address too (the guest's name, email and phone live on the contact), the leases they are a party to lose their
 * free texts (eraseLeaseTexts), their deals and viewings theirs (eraseDealTexts), the
 * maintenance of their leases its own (eraseMaintenanceTexts), and the company's kept Idempotency-Key answers are forgotten (lib/idempotency.ts). The records stay, with their references
 * and external ids, so clients see them through `updated_since` and erase their own copies. Events and the
 * audit log hold references only. test/crm/erasure-scan.test.ts scans every column of every table for what
 * a person sent through every route: a new table or column holding personal data must be erased here.
 */
export async function eraseContact(trx: Trx, companyId: string, contactId: string, causedBy: CausedBy): Promise<boolean> {
  const erased = await trx
    .updateTable('contacts')
    .set({
      name: null,
      email: null,
      email_key: null,
      phone: null,
      phone_key: null,
      language: null,
      roles: [],
      erased: true,
      erased_at: new Date(),
    })
    .where('company_id', '=', companyId)
    .where('id', '=', contactId)
    .where('erased', '=', false)
    .returning('reference')
    .executeTakeFirst();
  if (!erased) return false;
  const leads = trx.selectFrom('leads').select('id').where('contact_id', '=', contactId);
  await trx
    .updateTable('leads')
    .set({
      message: null,
      details_jwe: null,
      page: null,
      next_action: null,
      next_action_at: null,
      consent_address: null,
      language: null,
      erased: true,
      erased_at: new Date(),
    })
    .where('contact_id', '=', contactId)
    .execute();
  await trx
    .updateTable('bookings')
    .set({ message: null, language: null, consent_address: null, updated_at: new Date() })
    .where('company_id', '=', companyId)
    .where('contact_id', '=', contactId)
    .execute();
  await eraseLeaseTexts(trx, companyId, contactId);
  await eraseDealTexts(trx, companyId, contactId);
  await eraseMaintenanceTexts(trx, companyId, contactId);
  await trx
    .updateTable('activities')
    .set({ body: null })
    .where((eb) => eb.or([eb('contact_id', '=', contactId), eb('lead_id', 'in', leads)]))
    .execute();
  await trx
    .updateTable('tasks')
    .set({ title: '' })
    .where((eb) => eb.or([eb('contact_id', '=', contactId), eb('lead_id', 'in', leads)]))
    .execute();
  await forgetKeptAnswers(trx, companyId);
  await recordEvent(trx, {
    companyId,
    type: 'contact.updated',
    causedBy,
    data: { reference: erased.reference },
  });
  return true;
}

/**
 * What of the leases a person is a party to (renter or landlord) can name or identify them: the lease's notes,
 * registration (a number the tenancy registry files under the parties' names) and renewal terms (free text), the
 * deposit's deduction reason (free text; `(erased)`, as a deduction always says why), its notices' texts, and its
 * payments' notes and cheques (a cheque's number and bank point at the drawer's bank account; a bounced payment's
 * too: its one allowed change, migrations 0012 and 0019). Every such lease is touched, so clients pulling
 * `updated_since` see it again. Amounts, days, statuses and links stay: they are the accounts' records, not the
 * person's (each kept column and why: docs/api-reference.md, "Erasure"; test/crm/erasure-scan.test.ts).
 */
async function eraseLeaseTexts(trx: Trx, companyId: string, contactId: string): Promise<void> {
  const leases = trx
    .selectFrom('leases')
    .select('id')
    .where('company_id', '=', companyId)
    .where((eb) => eb.or([eb('renter_id', '=', contactId), eb('landlord_id', '=', contactId)]));
  await trx
    .updateTable('lease_notices')
    .set({ text: null })
    .where('lease_id', 'in', leases)
    .where('text', 'is not', null)
    .execute();
  await trx
    .updateTable('rent_payments')
    .set({ notes: null, cheque_number: null, cheque_bank: null })
    .where('lease_id', 'in', leases)
    .where((eb) => eb.or([eb('notes', 'is not', null), eb('cheque_number', 'is not', null)]))
    .execute();
  await trx
    .updateTable('leases')
    .set({
      notes: null,
      registration: null,
      renewal_terms: null,
      deposit_reason: sql`case when deposit_reason is null then null else '(erased)' end`,
    })
    .where('id', 'in', leases)
    .execute();
}

/**
 * The free texts of the person's deals, which may name them or say what they thought: the deal's title and the reason
 * it closed, and every viewing's feedback. Each such deal and viewing is touched (its updated_at moves).
 */
async function eraseDealTexts(trx: Trx, companyId: string, contactId: string): Promise<void> {
  const deals = trx.selectFrom('deals').select('id').where('company_id', '=', companyId).where('contact_id', '=', contactId);
  await trx.updateTable('viewings').set({ feedback: null }).where('deal_id', 'in', deals).execute();
  await trx.updateTable('deals').set({ title: null, close_reason: null }).where('id', 'in', deals).execute();
}

/**
 * The free texts of the maintenance of the leases a person is a party to (renter or landlord), which may name them:
 * each job's problem (replaced by "(erased)": a job always says what is wrong), what was done, the approval note and
 * the cancel reason; its charges' descriptions (their one allowed change, migration 0013); the inspections' notes and
 * each area's notes. A job reported about a home with no lease of the person is not theirs to reach.
 */
async function eraseMaintenanceTexts(trx: Trx, companyId: string, contactId: string): Promise<void> {
  const leases = trx
    .selectFrom('leases')
    .select('id')
    .where('company_id', '=', companyId)
    .where((eb) => eb.or([eb('renter_id', '=', contactId), eb('landlord_id', '=', contactId)]));
  const jobs = trx.selectFrom('jobs').select('id').where('lease_id', 'in', leases);
  await trx
    .updateTable('job_charges')
    .set({ description: null })
    .where('job_id', 'in', jobs)
    .where('description', 'is not', null)
    .execute();
  await trx
    .updateTable('jobs')
    .set({ problem: '(erased)', work_done: null, approval_note: null, cancel_reason: null })
    .where('lease_id', 'in', leases)
    .execute();
  await trx
    .updateTable('inspections')
    .set({
      notes: null,
      areas: sql`(select coalesce(jsonb_agg(area || '{"notes": null}'::jsonb order by position), '[]'::jsonb)
        from jsonb_array_elements(areas) with ordinality as listed(area, position))`,
    })
    .where('lease_id', 'in', leases)
    .execute();
}

/**
 * The retention rule (company setting `retention_days`): people with no change to themselves, their leads or
 * their timeline for that many days are erased by scheduled work. Returns how many were erased.
 */
export async function applyRetention(db: Db, now = new Date()): Promise<number> {
  const due = await sql<{ company_id: string; id: string }>`
    select c.company_id, c.id
    from contacts c
    join companies co on co.id = c.company_id
    where not c.erased
      and (co.settings ->> 'retention_days') is not null
      and greatest(
            c.updated_at,
            coalesce((select max(l.updated_at) from leads l where l.contact_id = c.id), c.updated_at),
            coalesce((select max(a.updated_at) from activities a where a.contact_id = c.id), c.updated_at)
          ) < ${now}::timestamptz - make_interval(days => (co.settings ->> 'retention_days')::int)
    limit 500
  `.execute(db);
  let count = 0;
  for (const row of due.rows) {
    const done = await db.transaction().execute((trx) => eraseContact(trx, row.company_id, row.id, 'system'));
    if (done) count++;
  }
  return count;
}

import { type RawBuilder, sql } from 'kysely';
import type { Db, Executor } from '../../lib/db/index';
import { notFound } from '../../lib/errors';
import { type CausedBy, eventCtes, newEventId } from '../../lib/events';
import { stamp } from '../../lib/clock';

/**
 * Erases a person and their leads for good (a privacy request, or the retention rule): personal fields emptied, lead
 * details and free text that can hold personal data removed (messages, pages, notes, activity bodies, task titles),
 * what they sent as they sent it (`sent`), `erased: true`, and the possible-duplicate marks naming them. Their booking
 * requests lose the guest's message, language, consent address and what they sent, their saved searches stop (without
 * the consent's address), the leases they are a party to lose their free texts, their deals and viewings
 * theirs, the maintenance of their leases its own, and the company's kept Idempotency-Key answers are forgotten
 * (lib/idempotency.ts). The records stay, with their references and external ids, so clients see them through
 * `updated_since` and erase their own copies. Events and the audit log hold references only.
 * test/crm/erasure-scan.test.ts scans every column of every table for what a person sent through every route: a new
 * table or column holding personal data must be erased here.
 *
 * One statement (no transaction, one round trip): the person's update, then one CTE per table, each written only if the
 * person was erased now (an erased person is left alone), each over rows as they were before the statement.
 */
function erasure(companyId: string, person: RawBuilder<unknown>, options: { causedBy: CausedBy; now: Date }) {
  const c = sql`${companyId}::uuid`;
  const now = sql`${options.now}::timestamptz`;
  const when = sql`exists (select from erased)`;
  const leases = sql`(select id from leases where company_id = ${c} and (renter_id = (select id from person) or landlord_id = (select id from person)))`;
  return sql`
    with person as (${person}),
    erased as (
      update contacts set name = null, search_name = null, email = null, email_key = null, phone = null, phone_key = null,
        language = null, trn = null,
        roles = '{}', erased = true, erased_at = ${now}
      where company_id = ${c} and id = (select id from person) and not erased
      returning id, reference
    ),
    person_leads as (select id from leads where contact_id = (select id from person)),
    leads_erased as (
      update leads set message = null, details_jwe = null, page = null, next_action = null, next_action_at = null,
        consent_address = null, language = null, sent_name = null, sent_email = null, sent_phone = null,
        sent_listing = null, referral = null, erased = true, erased_at = ${now}
      where contact_id = (select id from person) and ${when}
    ),
    bookings_erased as (
      update bookings set message = null, language = null, consent_address = null, sent_name = null, sent_email = null,
        sent_phone = null, updated_at = ${stamp}
      where company_id = ${c} and contact_id = (select id from person) and ${when}
    ),
    -- Their saved searches stop for good (no more alerts, no links), without the address their consent came from.
    saved_searches_erased as (
      update saved_searches set status = 'stopped', stop_reason = 'erased', stopped_at = coalesce(stopped_at, ${now}),
        consent_address = null, language = null, updated_at = ${stamp}
      where company_id = ${c} and contact_id = (select id from person) and ${when}
    ),
    -- The marks that said this person shared a phone with another: the erased person no longer has one.
    duplicates_forgotten as (
      delete from contact_duplicates
      where (contact_id = (select id from person) or duplicate_id = (select id from person)) and ${when}
    ),
    notices_erased as (
      update lease_notices set text = null where lease_id in ${leases} and text is not null and ${when}
    ),
    -- A cheque's number and bank point at the drawer's bank account (a bounced payment's too: its one allowed change,
    -- migration 0019); registration is a number the tenancy registry files under the parties' names; renewal terms
    -- and the deposit's deduction reason are free text ('(erased)': a deduction always says why). Amounts, days,
    -- statuses and links stay (docs/api-reference.md, "Erasure"; test/crm/erasure-scan.test.ts).
    payments_erased as (
      update rent_payments set notes = null, cheque_number = null, cheque_bank = null
      where lease_id in ${leases} and (notes is not null or cheque_number is not null or cheque_bank is not null) and ${when}
    ),
    -- A direct-debit mandate's account holder and sealed IBAN name and identify the account debited (issue 34): both
    -- emptied, together (migration 0038 allows exactly that); its bank, last four, maximum, days and status stay.
    mandates_erased as (
      update rent_mandates set account_holder = null, iban_jwe = null
      where lease_id in ${leases} and account_holder is not null and ${when}
    ),
    leases_erased as (
      update leases set notes = null, registration = null, renewal_terms = null,
        deposit_reason = case when deposit_reason is null then null else '(erased)' end
      where id in ${leases} and ${when}
    ),
    viewings_erased as (
      update viewings set feedback = null
      where deal_id in (select id from deals where company_id = ${c} and contact_id = (select id from person)) and ${when}
    ),
    deals_erased as (
      update deals set title = null, close_reason = null
      where company_id = ${c} and contact_id = (select id from person) and ${when}
    ),
    charges_erased as (
      update job_charges set description = null
      where job_id in (select id from jobs where lease_id in ${leases}) and description is not null and ${when}
    ),
    jobs_erased as (
      update jobs set problem = '(erased)', work_done = null, approval_note = null, cancel_reason = null
      where lease_id in ${leases} and ${when}
    ),
    inspections_erased as (
      update inspections set notes = null,
        areas = (select coalesce(jsonb_agg(area || '{"notes": null}'::jsonb order by position), '[]'::jsonb)
          from jsonb_array_elements(areas) with ordinality as listed(area, position))
      where lease_id in ${leases} and ${when}
    ),
    activities_erased as (
      update activities set body = null
      where (contact_id = (select id from person) or lead_id in (select id from person_leads)) and ${when}
    ),
    tasks_erased as (
      update tasks set title = ''
      where (contact_id = (select id from person) or lead_id in (select id from person_leads)) and ${when}
    ),
    answers_forgotten as (
      delete from idempotency_keys where company_id = ${c} and status_code is not null and ${when}
    ),
    ${eventCtes(
      'erasure',
      newEventId(),
      { companyId, type: 'contact.updated', causedBy: options.causedBy },
      'erased',
      sql`jsonb_build_object('reference', happened.reference)`,
    )}
    select exists (select from person) as found, exists (select from erased) as erased_now
  `;
}

type Erased = { found: boolean; erased_now: boolean };

/** Erases the contact `contactId` of the company (above); false when it was erased already. */
export async function eraseContact(
  executor: Executor,
  companyId: string,
  contactId: string,
  options: { causedBy: CausedBy; now: Date },
): Promise<boolean> {
  const person = sql`select id from contacts where company_id = ${companyId}::uuid and id = ${contactId}::uuid`;
  const { rows } = await sql<Erased>`${erasure(companyId, person, options)}`.execute(executor);
  return rows[0]?.erased_now ?? false;
}

/** The operator's erasure of the person with `reference` (404 when the company has none): whether it was erased before. */
export async function eraseByReference(
  db: Db,
  companyId: string,
  reference: string,
  now: Date,
): Promise<{ already_erased: boolean }> {
  const person = sql`select id from contacts where company_id = ${companyId}::uuid and reference = ${reference}`;
  const { rows } = await sql<Erased>`${erasure(companyId, person, { causedBy: 'admin', now })}`.execute(db);
  if (!rows[0]?.found) throw notFound(`The person ${reference}`);
  return { already_erased: !rows[0].erased_now };
}

/**
 * The retention rule (company setting `retention_days`): people with no change to themselves, their leads or their
 * timeline for that many days before `now` (the scheduler's) are erased by scheduled work. Returns how many were erased.
 */
export async function applyRetention(db: Db, now: Date): Promise<number> {
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
    if (await eraseContact(db, row.company_id, row.id, { causedBy: 'system', now })) count++;
  }
  return count;
}

import type { z } from '@hono/zod-openapi';
import Big from 'big.js';
import { type RawBuilder, sql } from 'kysely';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { type ExternalLink, externalIdsColumn, shownExternalIds } from '../../lib/external-ids';
import { amountOut, storedDigits } from '../../lib/money';
import type { LeaseRow, NoticeIntent, NoticeParty, RentPaymentStatus, RentPeriod } from '../../schema/leases/db';
import type { LeaseSchema } from '../../schema/leases/leases';
import { termRent } from './term';

export type LeaseView = z.infer<typeof LeaseSchema>;

/** A notice as a lease's row carries it (oldest first). */
export type NoticeEntry = {
  given_on: string;
  given_by: NoticeParty;
  intent: NoticeIntent;
  vacate_on: string | null;
  proposed_rent: string | null;
  text: string | null;
  recorded_at: string;
};

/** A rent payment of a lease's schedule as the lease's row carries it (in due order). */
export type ScheduleEntry = {
  payment_id: string;
  due_on: string;
  amount: string;
  status: RentPaymentStatus;
  cheque_number: string | null;
  cheque_bank: string | null;
  replaces_id: string | null;
  created_at: string;
};

/**
 * A lease row as selectLeases gives it: the lease with its home, parties, renewal links, the company's currency, and
 * its notices, schedule and external ids as JSON columns, so a page (or a write's answer) is shown without a query.
 */
export type LeaseRecord = LeaseRow & {
  home_slug: string;
  home_type: string;
  renter_reference: string;
  landlord_reference: string;
  renews_reference: string | null;
  renews_rent_amount: string | null;
  renews_rent_period: RentPeriod | null;
  renewal_id: string | null;
  renewal_reference: string | null;
  currency: string;
  notices: NoticeEntry[];
  payments: ScheduleEntry[];
  external: ExternalLink[];
};

/** A schedule entry of a `rent_payments` row (alias `p`), as JSON: the order key is kept for a write's answer. */
export const scheduleEntry = (p: string) =>
  sql`jsonb_build_object('payment_id', ${sql.ref(`${p}.id`)}, 'due_on', ${sql.ref(`${p}.due_on`)}::text,
    'amount', ${sql.ref(`${p}.amount`)}::text, 'status', ${sql.ref(`${p}.status`)},
    'cheque_number', ${sql.ref(`${p}.cheque_number`)}, 'cheque_bank', ${sql.ref(`${p}.cheque_bank`)},
    'replaces_id', ${sql.ref(`${p}.replaces_id`)}, 'created_at', ${sql.ref(`${p}.created_at`)})`;

/** The schedule entries of rows `from` (a table or CTE as `p`), in the schedule's order: one JSON array. */
export const scheduleOf = (from: RawBuilder<unknown>) =>
  sql<ScheduleEntry[]>`coalesce((select jsonb_agg(${scheduleEntry('p')} order by p.due_on, p.created_at, p.id)
    from ${from}), '[]'::jsonb)`;

/** A notice of a `lease_notices` row (alias `n`), as JSON. */
export const noticeEntry = (n: string) =>
  sql`jsonb_build_object('given_on', ${sql.ref(`${n}.given_on`)}::text, 'given_by', ${sql.ref(`${n}.given_by`)},
    'intent', ${sql.ref(`${n}.intent`)}, 'vacate_on', ${sql.ref(`${n}.vacate_on`)}::text,
    'proposed_rent', ${sql.ref(`${n}.proposed_rent`)}::text, 'text', ${sql.ref(`${n}.text`)},
    'recorded_at', ${sql.ref(`${n}.recorded_at`)})`;

/** A lease row's own columns as a write statement returns them (`alias.*`, dates and version as text). */
export const leaseColumns = (alias: string) =>
  sql.raw(`${alias}.*, ${alias}.starts_on::text as starts_on, ${alias}.ends_on::text as ends_on,
    ${alias}.ended_on::text as ended_on, ${alias}.version::text as version`);

/**
 * A company's leases with what their answer shows joined (see {@link LeaseRecord}): one statement for a page.
 */
export function selectLeases(executor: Executor, companyId: string) {
  return executor
    .selectFrom('leases')
    .innerJoin('listings as home', 'home.id', 'leases.listing_id')
    .innerJoin('contacts as renter', 'renter.id', 'leases.renter_id')
    .innerJoin('contacts as landlord', 'landlord.id', 'leases.landlord_id')
    .innerJoin('companies as company', 'company.id', 'leases.company_id')
    .leftJoin('leases as renews', 'renews.id', 'leases.renews_id')
    .leftJoin('leases as renewal', 'renewal.renews_id', 'leases.id')
    .selectAll('leases')
    .select([
      sql<string>`leases.starts_on::text`.as('starts_on'),
      sql<string>`leases.ends_on::text`.as('ends_on'),
      sql<string | null>`leases.ended_on::text`.as('ended_on'),
      sql<string>`leases.version::text`.as('version'),
      'home.slug_en as home_slug',
      'home.listing_type as home_type',
      'renter.reference as renter_reference',
      'landlord.reference as landlord_reference',
      'renews.reference as renews_reference',
      sql<string | null>`renews.rent_amount::text`.as('renews_rent_amount'),
      'renews.rent_period as renews_rent_period',
      'renewal.id as renewal_id',
      'renewal.reference as renewal_reference',
      'company.currency as currency',
      sql<NoticeEntry[]>`coalesce((select jsonb_agg(${noticeEntry('n')} order by n.recorded_at, n.id)
        from lease_notices n where n.lease_id = leases.id), '[]'::jsonb)`.as('notices'),
      scheduleOf(sql`rent_payments p where p.lease_id = leases.id`).as('payments'),
      externalIdsColumn('lease', 'leases.id').as('external'),
    ])
    .where('leases.company_id', '=', companyId);
}

/** A schedule in its order (due day, then when added, then id), as the lease shows it. */
export function scheduleOrder(entries: ScheduleEntry[]): ScheduleEntry[] {
  const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...entries].sort(
    (a, b) =>
      text(a.due_on, b.due_on) ||
      new Date(a.created_at).getTime() - new Date(b.created_at).getTime() ||
      text(a.payment_id, b.payment_id),
  );
}

const money = (value: string, currency: string) => amountOut(value, currency) as string;

/** A lease as the API shows it, with its notices, schedule and external ids (no query: all are in its row). */
export function presentLease(row: LeaseRecord): LeaseView {
  const { currency } = row;
  const rent = { amount: money(row.rent_amount, currency), period: row.rent_period };
  const term = { start: row.starts_on, end: row.ends_on };
  return {
    reference: row.reference,
    home: row.home_slug,
    renter: row.renter_reference,
    landlord: row.landlord_reference,
    status: row.status,
    term,
    rent: { ...rent, term_total: money(termRent(rent, term, storedDigits(currency)).toString(), currency) },
    deposit: {
      amount: money(row.deposit_amount, currency),
      outcome: row.deposit_outcome,
      deductions: amountOut(row.deposit_deductions, currency),
      reason: row.deposit_reason,
    },
    registration: row.registration,
    notice: {
      period_days: row.notice_days,
      given: row.notices.map((n) => ({
        given_on: n.given_on,
        by: n.given_by,
        intent: n.intent,
        vacate_on: n.vacate_on,
        proposed_rent: amountOut(n.proposed_rent, currency),
        text: n.text,
        recorded_at: iso(n.recorded_at),
      })),
    },
    renewal: { terms: row.renewal_terms, renews: row.renews_reference, renewed_by: row.renewal_reference },
    schedule: {
      payments: row.schedule_count,
      rows: row.payments.map((p) => ({
        payment_id: p.payment_id,
        due_on: p.due_on,
        amount: money(p.amount, currency),
        status: p.status,
        cheque: p.cheque_number === null || p.cheque_bank === null ? null : { number: p.cheque_number, bank: p.cheque_bank },
      })),
    },
    fee:
      row.fee_kind === null || row.fee_value === null ? null : { kind: row.fee_kind, value: new Big(row.fee_value).toString() },
    handler: row.handler_id,
    notes: row.notes,
    tax_category: row.tax_category,
    external: shownExternalIds(row.external),
    warnings: row.warnings,
    activated_at: iso(row.activated_at),
    ended_on: row.ended_on,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

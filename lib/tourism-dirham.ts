import Big from 'big.js';
import { type RawBuilder, sql } from 'kysely';
import { auditCte } from './audit';
import { todayIn } from './dates';
import type { Executor } from './db/index';
import { ApiError } from './errors';
import { formatAmount } from './money';
import { type Closing, closingOf, monthClosing, monthSpan, noClosings } from './statement-months';
import type { Company } from '../schema/platform/db';
import type { DetClass, QuotedDirham } from '../schema/stay/db';

/**
 * Dubai's Tourism Dirham of holiday homes (issue 37; docs/api-reference.md, "The Tourism Dirham"). The fee is set by
 * Dubai Executive Council Resolution No. (2) of 2014, table 1: per occupied room per night, AED 15 for a "Deluxe
 * Holiday Home" and AED 10 for a "Standard Holiday Home"; a holiday home's room is a bedroom (a studio counts as one),
 * charged for the stay's first nights up to the terms' `tourism_fee_max_nights` (default 30, DET's cap of 30
 * consecutive nights). It is a government fee the operator collects, outside VAT (lib/tax.ts: `tourism_dirham` is
 * out of scope). Quotes charge it (lib/stay/pricing.ts) and bookings keep what they were quoted (their quote's
 * `tourism_dirham`); the monthly report counts the nights of confirmed and paid bookings that fall in the month, each
 * night in its own month. A closed month (its owner statements' month closed, lib/statement-months.ts) is recorded
 * by the scheduled work that closes it, in the statement recording its closing (functions/statements/ready.ts), or
 * else (a month closed before that work ran, or by another path) the first time it is read or paid over (migration
 * 0060, `tourism_dirham_months`), and answered from that record ever after; paying it over to DET is recorded once, by an admin action, and clears the journal's liability.
 */

export const detCurrency = 'AED';

/** AED per bedroom per night by DET class (Executive Council Resolution No. (2) of 2014, table 1, rows 10 and 11). */
export const detRates: Record<DetClass, string> = { standard: '10', deluxe: '15' };

/** What a stay of `nights` nights of a classed home charges, capped at `maxNights` nights; bedrooms at least one. */
export function quotedDirham(
  detClass: DetClass,
  bedrooms: number | null,
  nights: number,
  maxNights: number,
  currency: string,
): QuotedDirham {
  const rooms = Math.max(1, bedrooms ?? 1);
  const charged = Math.min(nights, maxNights);
  const rate = new Big(detRates[detClass]);
  return {
    det_class: detClass,
    bedrooms: rooms,
    nights: charged,
    per_bedroom_night: formatAmount(rate, currency),
    amount: formatAmount(rate.times(rooms).times(charged), currency),
  };
}

/**
 * The Tourism Dirham each payment toward a booking carried, the payments in the order they were paid (their bases, what
 * each paid toward what is due, in minor units): the fee × what was paid up to and through the payment ÷ what the
 * booking is due (its quote's total plus deposit), rounded down, less the same of what was paid before it. The rule of
 * migration 0063's `booking_payment_dirham` (the owner's `booking_received` line) and of the `Tourism Dirham` line of
 * the payments' tax invoices (lib/payments/booking-invoices.ts), so a refund gives back what the payment carried.
 */
export function paymentsDirham(feeMinor: bigint, dueMinor: bigint, basesMinor: readonly bigint[]): bigint[] {
  const upTo = (paid: bigint) => (dueMinor <= 0n ? 0n : (feeMinor * (paid < dueMinor ? paid : dueMinor)) / dueMinor);
  let paid = 0n;
  return basesMinor.map((base) => {
    const before = upTo(paid);
    paid += base;
    return upTo(paid) - before;
  });
}

/** The fee of `nights` of a booking's charged nights, by its quote's Tourism Dirham (bedrooms × nights × rate). */
export const dirhamOfNights = (quoted: QuotedDirham, nights: number, currency: string): string =>
  formatAmount(new Big(quoted.per_bedroom_night).times(quoted.bedrooms).times(nights), currency);

/** One line of a month's report: a home (and class, bedrooms and rate, should they have changed within the month). */
export type DirhamLine = {
  listing_id: string;
  listing: string;
  det_class: DetClass;
  bedrooms: number;
  per_bedroom_night: string;
  bookings: number;
  nights: number;
  bedroom_nights: number;
  amount: string;
};

export type DirhamMonth = {
  month: string;
  currency: string;
  closing: Closing;
  /** When the closed month's report was recorded (null: open, computed as of now). */
  recorded_at: Date | null;
  homes: DirhamLine[];
  total: string;
  payment: { paid_on: string; reference: string; paid_at: Date } | null;
};

/** A day (`YYYY-MM-DD`) as a date, or SQL of a date as it is. */
const dayOf = (day: string | RawBuilder<unknown>) => (typeof day === 'string' ? sql`${day}::date` : day);

/**
 * The month's lines, computed from the bookings (SQL for a CTE): each confirmed or paid booking that kept a Tourism
 * Dirham, by the nights it charges (its first `nights`) that fall in [from, next); cancelled and held ones not.
 * `from` and `next` are days (`YYYY-MM-DD`) or SQL of dates (the closing job's months).
 */
function linesQuery(companyId: string, from: string | RawBuilder<unknown>, next: string | RawBuilder<unknown>) {
  const td = sql`(b.quote -> 'tourism_dirham')`;
  const [start, end] = [dayOf(from), dayOf(next)];
  return sql`
    select l.id::text as listing_id, l.slug_en as listing, ${td} ->> 'det_class' as det_class,
      (${td} ->> 'bedrooms')::int as bedrooms, (${td} ->> 'per_bedroom_night')::numeric as rate,
      count(distinct b.id)::int as bookings, count(*)::int as nights,
      (count(*) * (${td} ->> 'bedrooms')::int)::int as bedroom_nights,
      (count(*) * (${td} ->> 'bedrooms')::int * (${td} ->> 'per_bedroom_night')::numeric) as amount
    from bookings b
    join listings l on l.id = b.listing_id
    cross join lateral generate_series(
      b.check_in::timestamp,
      (least(b.check_out, b.check_in + (${td} ->> 'nights')::int) - 1)::timestamp,
      interval '1 day') as n(night)
    where b.company_id = ${companyId}::uuid and b.status in ('confirmed', 'paid') and ${td} is not null
      and b.check_in < ${end} and b.check_out > ${start}
      and n.night >= ${start} and n.night < ${end}
    group by l.id, l.slug_en, ${td} ->> 'det_class', ${td} ->> 'bedrooms', ${td} ->> 'per_bedroom_night'`;
}

type Recorded = {
  report: { homes: Array<Omit<DirhamLine, 'per_bedroom_night' | 'amount'> & { rate: string; amount: string }> };
  total: string;
  currency: string;
  recorded_at: Date | null;
  paid_on: string | null;
  payment_reference: string | null;
  paid_at: Date | null;
  grace_days?: number | null;
};

/** The homes of a report as JSON (sorted by home), its total, from the lines of {@link linesQuery}. */
const reportColumns = sql`
  jsonb_build_object('homes', coalesce(jsonb_agg(jsonb_build_object('listing_id', h.listing_id, 'listing', h.listing,
    'det_class', h.det_class, 'bedrooms', h.bedrooms, 'rate', h.rate::text, 'bookings', h.bookings, 'nights', h.nights,
    'bedroom_nights', h.bedroom_nights, 'amount', h.amount::text) order by h.listing, h.det_class, h.bedrooms, h.rate), '[]'))
    as report,
  coalesce(sum(h.amount), 0)::text as total`;

/**
 * A closed month's record: made from the bookings now if there is none (one statement; a record made meanwhile by
 * another request is kept and answered), else the record as it is.
 */
async function recordMonth(db: Executor, company: Company, month: string, now: Date): Promise<Recorded> {
  const { from, next } = monthSpan(month);
  const { rows } = await sql<Recorded>`
    with h as (${linesQuery(company.id, from, next)}),
    made as (
      insert into tourism_dirham_months (company_id, month, currency, report, total, recorded_at)
      select ${company.id}::uuid, ${from}::date, ${company.currency}, r.report, r.total::numeric, ${now}::timestamptz
      from (select ${reportColumns} from h) as r
      on conflict do nothing
      returning report, total::text as total, currency, recorded_at, paid_on::text as paid_on, payment_reference, paid_at)
    select * from made
    union all
    select report, total::text, currency, recorded_at, paid_on::text, payment_reference, paid_at from tourism_dirham_months
    where company_id = ${company.id}::uuid and month = ${from}::date`.execute(db);
  return rows[0] as Recorded;
}

/**
 * The statement (for a CTE) that records the Tourism Dirham of the months a closing records (the CTE `closed`,
 * lib/statement-months.ts recordClosings, returning each `month`): each month's report from the bookings as they are,
 * in the statement that closes it, so a closed month is recorded as it closed and not at its first read. A month
 * already recorded (a read's or another run's) is left as it is.
 */
export function recordClosedDirham(company: Pick<Company, 'id' | 'currency'>, closed: string, now: Date): RawBuilder<unknown> {
  const month = sql`${sql.ref(`${closed}.month`)}`;
  const next = sql`(${month} + interval '1 month')::date`;
  return sql`
    insert into tourism_dirham_months (company_id, month, currency, report, total, recorded_at)
    select ${company.id}::uuid, ${month}, ${company.currency}, r.report, r.total::numeric, ${now}::timestamptz
    from ${sql.table(closed)} cross join lateral (select ${reportColumns} from (${linesQuery(company.id, month, next)}) as h) as r
    on conflict do nothing
    returning month`;
}

/** An open month's report, computed from the bookings as they are. */
async function computeMonth(db: Executor, company: Company, month: string): Promise<Recorded> {
  const { from, next } = monthSpan(month);
  const { rows } = await sql<Recorded>`
    with h as (${linesQuery(company.id, from, next)})
    select ${reportColumns}, ${company.currency}::text as currency, null::timestamptz as recorded_at,
      null::text as paid_on, null::text as payment_reference, null::timestamptz as paid_at
    from h`.execute(db);
  return rows[0] as Recorded;
}

/** The report of `month` (`YYYY-MM`) at `now`: an open month as booked now, a closed one as recorded (`known`: its closing, read before). */
export async function dirhamMonth(
  db: Executor,
  company: Company,
  month: string,
  now: Date,
  known?: Closing,
): Promise<DirhamMonth> {
  const closing = known ?? (await monthClosing(db, company, month, now));
  const row = closing.status === 'closed' ? await recordMonth(db, company, month, now) : await computeMonth(db, company, month);
  return monthOf(month, closing, row);
}

function monthOf(month: string, closing: Closing, row: Recorded): DirhamMonth {
  const money = (value: string) => formatAmount(value, row.currency);
  return {
    month,
    currency: row.currency,
    closing,
    recorded_at: row.recorded_at,
    homes: row.report.homes.map(({ rate, ...home }) => ({
      listing_id: home.listing_id,
      listing: home.listing,
      det_class: home.det_class,
      bedrooms: home.bedrooms,
      per_bedroom_night: money(rate),
      bookings: home.bookings,
      nights: home.nights,
      bedroom_nights: home.bedroom_nights,
      amount: money(home.amount),
    })),
    total: money(row.total),
    payment:
      row.paid_on === null || row.paid_at === null
        ? null
        : { paid_on: row.paid_on, reference: row.payment_reference ?? '', paid_at: row.paid_at },
  };
}

/**
 * Records that the closed month's Tourism Dirham was paid over to DET on `paidOn` (its receipt `reference`), once, with
 * its audit row: the month is recorded with it if it was not (its report fixed as of now). 409 `conflict` for a
 * month still open or already paid over.
 */
export async function payOverMonth(
  db: Executor,
  company: Company,
  month: string,
  payment: { paid_on: string; reference: string },
  actor: string,
  now: Date,
): Promise<DirhamMonth> {
  // A month the company's rule closes is closed (a recorded closing only closes more): no read; else the records say.
  let closing = closingOf(company, month, now, noClosings);
  if (closing.status !== 'closed') closing = await monthClosing(db, company, month, now);
  if (closing.status !== 'closed') {
    throw new ApiError('conflict', `The month ${month} is open until ${closing.closes_on}: pay it over once it has closed.`);
  }
  const today = todayIn(company.time_zone, now);
  if (payment.paid_on <= monthSpan(month).to || payment.paid_on > today) {
    const message = `A day after the month (${month}) and not after today (${today}).`;
    throw new ApiError('invalid_request', message, { errors: [{ path: 'paid_on', code: 'invalid_value', message }] });
  }
  // One statement: the month recorded (if it was not: its report as of now) with its payment, or its record's payment
  // added; a month already paid over is left as it is (no row: 409).
  const { from, next } = monthSpan(month);
  const { rows } = await sql<Recorded>`
    with h as (${linesQuery(company.id, from, next)}),
    paid as (
      insert into tourism_dirham_months as d (company_id, month, currency, report, total, recorded_at, paid_on,
        payment_reference, paid_by, paid_at)
      select ${company.id}::uuid, ${from}::date, ${company.currency}, r.report, r.total::numeric, ${now}::timestamptz,
        ${payment.paid_on}::date, ${payment.reference}, ${actor}, ${now}::timestamptz
      from (select ${reportColumns} from h) as r
      on conflict (company_id, month) do update
        set paid_on = excluded.paid_on, payment_reference = excluded.payment_reference, paid_by = excluded.paid_by,
          paid_at = excluded.paid_at
        where d.paid_on is null
      returning d.company_id, to_char(d.month, 'YYYY-MM') as month, d.report, d.total::text as total, d.currency,
        d.recorded_at, d.paid_on::text as paid_on, d.payment_reference, d.paid_at),
    ${auditCte('audited', 'paid', { actor, action: 'tourism_dirham.paid_over', subject: 'month', columns: ['total', 'paid_on'] })}
    select report, total, currency, recorded_at, paid_on, payment_reference, paid_at,
      (select grace_days from statement_closings
        where company_id = ${company.id}::uuid and month = ${from}::date and recorded_at <= ${now}::timestamptz) as grace_days
    from paid, (select count(*) from audited) as a`.execute(db);
  const row = rows[0];
  if (!row) throw new ApiError('conflict', `The Tourism Dirham of ${month} was already paid over.`);
  // The day it closed, by the grace days it was recorded closed under (as a read answers it), when recorded.
  const grace = row.grace_days ?? null;
  if (grace !== null) closing = closingOf(company, month, now, { through: null, graceOf: new Map([[month, grace]]) });
  return monthOf(month, closing, row);
}

/**
 * The journal's facts of a month (functions/statements/journal.ts): the month's Tourism Dirham (the liability it
 * raised, at its last day) and the payments over to DET recorded on a day of it (each clearing its own month's).
 */
export async function dirhamJournalFacts(
  db: Executor,
  company: Company,
  month: string,
  closing: Closing,
  now: Date,
): Promise<{
  month: DirhamMonth;
  paidOver: Array<{ month: string; paid_on: string; reference: string; total: string; currency: string }>;
}> {
  const { from, to } = monthSpan(month);
  const [own, paid] = await Promise.all([
    dirhamMonth(db, company, month, now, closing),
    sql<{ month: string; paid_on: string; reference: string; total: string; currency: string }>`
      select to_char(month, 'YYYY-MM') as month, paid_on::text as paid_on, payment_reference as reference, total::text as total, currency
      from tourism_dirham_months
      where company_id = ${company.id}::uuid and paid_on >= ${from}::date and paid_on <= ${to}::date and paid_at <= ${now}::timestamptz
      order by paid_on, month`.execute(db),
  ]);
  return { month: own, paidOver: paid.rows };
}

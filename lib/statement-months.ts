import { type RawBuilder, sql } from 'kysely';
import { addDays, todayIn } from './dates';
import type { Executor } from './db/index';
import type { Company, CompanySettings } from '../schema/platform/db';

/**
 * Months of a company's owner statements, and when one closes (docs/api-reference.md, "When a month closes"). A
 * month's lines are final from its last day: every line's day is the day it was booked, always "today" in the
 * company's time zone, so nothing is booked into a month that is over. The company's `statement_grace_days` (default
 * 5) only delay its `closed` status and `owner_statement.ready`, so the office can review the month before owners are
 * told.
 *
 * Closing is a fact recorded when it happens (migration 0031, `statement_closings`): the scheduled work that
 * announces statements records each month it closes, and a change of the grace days first records the months closed
 * under the days it replaces. A read counts every month up to the company's last recorded one as closed, each with
 * the day it closed, and applies the rule of the company's current settings only to the months after it, which is
 * what the scheduler will record next. So lowering the grace days closes months sooner; raising them never reopens
 * one. Here, not in the statements group, because the admin API's change of the settings records closings too.
 */
export const statementDefaults = { statement_grace_days: 5 } as const;

export type MonthSpan = { month: string; from: string; to: string; next: string };

/** `YYYY-MM` as its first day, last day and the next month's first day. */
export function monthSpan(month: string): MonthSpan {
  const year = Number(month.slice(0, 4));
  const index = Number(month.slice(5, 7));
  const from = `${month}-01`;
  const next = index === 12 ? `${year + 1}-01-01` : `${month.slice(0, 5)}${String(index + 1).padStart(2, '0')}-01`;
  return { month, from, to: addDays(next, -1), next };
}

/** The month `YYYY-MM` of a day `YYYY-MM-DD`. */
export const monthOf = (day: string) => day.slice(0, 7);

type Zoned = Pick<Company, 'time_zone' | 'settings'>;

export function graceDays(company: { settings: CompanySettings }): number {
  return company.settings.statement_grace_days ?? statementDefaults.statement_grace_days;
}

/** The day a month closes under `grace` days: the next month's first day plus them. */
const closesOn = (month: string, grace: number) => addDays(monthSpan(month).next, grace);

/** The first month the company's rule leaves open at `now`: every earlier month is closed. */
export function firstOpenMonth(company: Zoned, now: Date): string {
  return monthOf(addDays(todayIn(company.time_zone, now), -graceDays(company)));
}

/** The last month the company's rule closes at `now` (the month before the first open one). */
export function lastClosedMonth(company: Zoned, now: Date): string {
  return monthOf(addDays(`${firstOpenMonth(company, now)}-01`, -1));
}

/**
 * What is recorded of a company's closings, as of `now` (a closing recorded later did not exist then): the last
 * month recorded closed (null: none yet) and, of the months asked for, the grace days each closed under.
 */
export type RecordedClosings = { through: string | null; graceOf: ReadonlyMap<string, number> };

export const noClosings: RecordedClosings = { through: null, graceOf: new Map() };

/** The company's recorded closings as of `now`, with those of `months` (`YYYY-MM`): one read. */
export async function recordedClosings(
  db: Executor,
  companyId: string,
  months: readonly string[],
  now: Date,
): Promise<RecordedClosings> {
  const { rows } = await sql<{ through: string | null; months: Array<{ month: string; grace_days: number }> | null }>`
    select
      (select to_char(max(month), 'YYYY-MM') from statement_closings
        where company_id = ${companyId}::uuid and recorded_at <= ${now}::timestamptz) as through,
      (select jsonb_agg(jsonb_build_object('month', to_char(month, 'YYYY-MM'), 'grace_days', grace_days))
        from statement_closings
        where company_id = ${companyId}::uuid and recorded_at <= ${now}::timestamptz
          and month = any(${months.map((month) => `${month}-01`)}::date[])) as months`.execute(db);
  const row = rows[0];
  return {
    through: row?.through ?? null,
    graceOf: new Map((row?.months ?? []).map((closed) => [closed.month, closed.grace_days])),
  };
}

export type Closing = { status: 'open' | 'closed'; closes_on: string };

/**
 * Whether a month is closed at `now`, and the day it closed or closes. A recorded month is closed, on the day its
 * own grace days gave; a month before the company's last recorded one is closed too (the months before its first
 * recording: its rule had closed them all when it was made); a later month follows the company's current rule.
 */
export function closingOf(company: Zoned, month: string, now: Date, recorded: RecordedClosings): Closing {
  const grace = recorded.graceOf.get(month);
  if (grace !== undefined) return { status: 'closed', closes_on: closesOn(month, grace) };
  const closes_on = closesOn(month, graceDays(company));
  const closed = (recorded.through !== null && month <= recorded.through) || todayIn(company.time_zone, now) >= closes_on;
  return { status: closed ? 'closed' : 'open', closes_on };
}

/** A month's closing at `now` (one read of what is recorded). */
export async function monthClosing(db: Executor, company: Company, month: string, now: Date): Promise<Closing> {
  return closingOf(company, month, now, await recordedClosings(db, company.id, [month], now));
}

/**
 * The statement (for a CTE: `closed as (…)`, returning each `month` it recorded) that records the company's months
 * closed at `now` under its settings `company.settings`: every month from the one after its last recorded (or, the
 * first time, from its first month with a statement, or else the last closed one) through the last month the rule
 * closes, with the grace days they closed under. A month already recorded (another run's) is left as it is, so
 * runs from several places record each month once. `onlyIf`: a condition on the statement's other CTEs (e.g.
 * `exists (select from changed)`).
 */
export function recordClosings(
  company: Pick<Company, 'id' | 'time_zone' | 'settings'>,
  now: Date,
  onlyIf: RawBuilder<unknown> = sql`true`,
): RawBuilder<unknown> {
  const through = `${lastClosedMonth(company, now)}-01`;
  return sql`
    insert into statement_closings (company_id, month, grace_days, recorded_at)
    select ${company.id}::uuid, m::date, ${graceDays(company)}::int, ${now}::timestamptz
    from generate_series(
      coalesce(
        (select (max(month) + interval '1 month')::date from statement_closings
          where company_id = ${company.id}::uuid and recorded_at <= ${now}::timestamptz),
        least((select min(month) from owner_statements where company_id = ${company.id}::uuid), ${through}::date)
      )::timestamp,
      ${through}::timestamp,
      interval '1 month'
    ) as m
    where ${onlyIf}
    on conflict do nothing
    returning month`;
}

import type { z } from '@hono/zod-openapi';
import Big from 'big.js';
import { sql } from 'kysely';
import { auditCte } from '../../lib/audit';
import { stamp } from '../../lib/clock';
import { iso } from '../../lib/dates';
import { type Db, type Executor, isExclusionViolation } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { fieldProblem } from '../../lib/named-records';
import { lastUsableDay, uncl5305 } from '../../lib/tax';
import type { RatedTaxCategory } from '../../schema/common/tax';
import type { TaxRateRow } from '../../schema/platform/db';
import type { CloseTaxRateInput, CreateTaxRateInput } from '../../schema/platform/tax-rates';

/**
 * The dated tax rates (docs/api-reference.md, "Tax"): the operator adds a rate that starts on a day no company has
 * reached yet, and closes an open rate from such a day; a day some company may already have used never changes its
 * rate. Two rates of one category never share a day: the table's exclusion constraint refuses the second within the
 * statement (a rate added at the same time included), and the refusal is 400 at `valid_from` naming the other rate.
 * Each write is one statement with its audit row (no company: the table is the platform's).
 */

/** A rate row's columns, its days as text. */
const rateColumns = (alias: string) =>
  sql.raw(`${alias}.id, ${alias}.category, ${alias}.rate::text as rate, ${alias}.valid_from::text as valid_from,
    ${alias}.valid_to::text as valid_to, ${alias}.created_at, ${alias}.updated_at`);

/** A rate as the admin API shows it: its percentage without trailing zeros ("5"), its UNCL5305 code. */
function presentRate(row: TaxRateRow) {
  return {
    id: row.id,
    category: row.category,
    rate: new Big(row.rate).toString(),
    code: uncl5305[row.category] as 'S' | 'Z',
    valid_from: row.valid_from,
    valid_to: row.valid_to,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** Every rate, by category then first day. */
export async function allTaxRates(db: Db) {
  const { rows } = await sql<TaxRateRow>`select ${rateColumns('r')} from tax_rates r order by r.category, r.valid_from`.execute(
    db,
  );
  return { results: rows.map(presentRate), next_cursor: null };
}

/** The rates of `category` whose days meet [from, to] (to null: open), for the refusal's message. */
async function overlapping(db: Executor, category: RatedTaxCategory, from: string, to: string | null) {
  const { rows } = await sql<TaxRateRow>`select ${rateColumns('r')} from tax_rates r where r.category = ${category}
    and daterange(r.valid_from, r.valid_to, '[]') && daterange(${from}::date, ${to}::date, '[]')
    order by r.valid_from`.execute(db);
  return rows;
}

const daysOf = (rate: { valid_from: string; valid_to: string | null }) => `${rate.valid_from} to ${rate.valid_to ?? '(open)'}`;

/** POST /tax-rates: a rate of a rated category from a day not yet reached anywhere (`now` the services' clock). */
export async function addTaxRate(db: Db, input: z.infer<typeof CreateTaxRateInput>, now: Date) {
  const last = lastUsableDay(now);
  if (input.valid_from <= last) {
    throw fieldProblem(
      'valid_from',
      'date_in_use',
      `A rate starts on a day no company has reached yet: after ${last} (today in UTC+14). A rate in force on a day already used never changes.`,
    );
  }
  const category = input.category as RatedTaxCategory;
  try {
    const { rows } = await sql<TaxRateRow>`
      with added as (
        insert into tax_rates (category, rate, valid_from, valid_to)
        values (${category}, ${input.rate}::numeric, ${input.valid_from}::date, ${input.valid_to}::date)
        returning *
      ),
      subject as (select added.id, null::uuid as company_id from added),
      ${auditCte('audited', 'subject', {
        actor: 'admin',
        action: 'tax_rate.created',
        subject: 'id',
        details: { category, rate: input.rate, valid_from: input.valid_from, valid_to: input.valid_to },
      })}
      select ${rateColumns('added')} from added`.execute(db);
    return presentRate(rows[0]!);
  } catch (error) {
    if (!isExclusionViolation(error)) throw error;
    const others = await overlapping(db, category, input.valid_from, input.valid_to);
    const named = others.length > 0 ? others.map(daysOf).join(', ') : 'another rate';
    throw fieldProblem(
      'valid_from',
      'overlapping_rate',
      `A ${category} rate already holds some of these days (${named}): close it first (PATCH /tax-rates/{rate_id} with valid_to).`,
    );
  }
}

/**
 * PATCH /tax-rates/{id}: an open rate closed, its last day `valid_to`, today in UTC+14 or later (so every day after it
 * is one no company has reached) and not before its first day. One statement changes it only while it is still open;
 * when nothing changed, a read says why (404, 409 already closed, 400 before its first day).
 */
export async function closeTaxRate(db: Db, id: string, input: z.infer<typeof CloseTaxRateInput>, now: Date) {
  const last = lastUsableDay(now);
  if (input.valid_to < last) {
    throw fieldProblem(
      'valid_to',
      'date_in_use',
      `A rate closes from a day no company has reached yet: its last day is ${last} (today in UTC+14) or later.`,
    );
  }
  const { rows } = await sql<TaxRateRow>`
    with closed as (
      update tax_rates set valid_to = ${input.valid_to}::date, updated_at = ${stamp}
      where id = ${id} and valid_to is null and valid_from <= ${input.valid_to}::date
      returning *
    ),
    subject as (select closed.id, null::uuid as company_id from closed),
    ${auditCte('audited', 'subject', {
      actor: 'admin',
      action: 'tax_rate.closed',
      subject: 'id',
      details: { valid_to: input.valid_to },
    })}
    select ${rateColumns('closed')} from closed`.execute(db);
  if (rows[0]) return presentRate(rows[0]);
  const { rows: found } = await sql<TaxRateRow>`select ${rateColumns('r')} from tax_rates r where r.id = ${id}`.execute(db);
  const rate = found[0];
  if (!rate) throw notFound(`The tax rate ${id}`);
  if (rate.valid_to !== null) {
    throw new ApiError('conflict', `The tax rate ${id} is closed already (${daysOf(rate)}): its days never change.`);
  }
  throw fieldProblem('valid_to', 'before_valid_from', `On or after the rate’s first day, ${rate.valid_from}.`);
}

/**
 * DELETE /tax-rates/{id}: a rate that has not started anywhere yet (its first day after today in UTC+14), added by
 * mistake, goes; one statement with its audit row. A rate in force on a day already used stays (409).
 */
export async function removeTaxRate(db: Db, id: string, now: Date): Promise<void> {
  const last = lastUsableDay(now);
  const { rows } = await sql<{ id: string }>`
    with removed as (delete from tax_rates where id = ${id} and valid_from > ${last}::date returning id),
    subject as (select removed.id, null::uuid as company_id from removed),
    ${auditCte('audited', 'subject', { actor: 'admin', action: 'tax_rate.deleted', subject: 'id' })}
    select id from removed`.execute(db);
  if (rows[0]) return;
  const { rows: found } = await sql<TaxRateRow>`select ${rateColumns('r')} from tax_rates r where r.id = ${id}`.execute(db);
  if (!found[0]) throw notFound(`The tax rate ${id}`);
  throw new ApiError(
    'conflict',
    `The tax rate ${id} starts on ${found[0].valid_from}, a day already used (on or before ${last}, today in UTC+14): it stays.`,
  );
}

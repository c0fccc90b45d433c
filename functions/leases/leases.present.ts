import type { z } from '@hono/zod-openapi';
import Big from 'big.js';
import { sql } from 'kysely';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { externalIdsOf } from '../../lib/external-ids';
import { storedDigits } from '../../lib/money';
import type { LeaseRow } from '../../schema/leases/db';
import type { LeaseSchema } from '../../schema/leases/leases';
import { termRent } from './term';

export type LeaseView = z.infer<typeof LeaseSchema>;

/** A lease row as selectLeases gives it (leases.ts). */
export type LeaseRecord = LeaseRow & {
  home_slug: string;
  renter_reference: string;
  landlord_reference: string;
  renews_reference: string | null;
  renewal_reference: string | null;
  currency: string;
};

const money = (value: string, digits: number) => new Big(value).toFixed(digits);
const maybeMoney = (value: string | null, digits: number) => (value === null ? null : money(value, digits));

/** The notices and rent payments of a page of leases, two queries for the whole page. */
async function pageDetails(db: Executor, ids: string[]) {
  if (ids.length === 0) return { notices: [], payments: [] };
  const notices = await db
    .selectFrom('lease_notices')
    .selectAll()
    .select([
      sql<string>`given_on::text`.as('given_on'),
      sql<string | null>`vacate_on::text`.as('vacate_on'),
      sql<string | null>`proposed_rent::text`.as('proposed_rent'),
    ])
    .where('lease_id', 'in', ids)
    .orderBy('recorded_at')
    .orderBy('id')
    .execute();
  const payments = await db
    .selectFrom('rent_payments')
    .select(['id', 'lease_id', 'status', 'cheque_number', 'cheque_bank'])
    .select([sql<string>`due_on::text`.as('due_on'), sql<string>`amount::text`.as('amount')])
    .where('lease_id', 'in', ids)
    .orderBy('due_on')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return { notices, payments };
}

/** A page of leases as the API shows them: each with its notices, schedule and external ids. */
export async function presentLeases(db: Executor, rows: LeaseRecord[]): Promise<LeaseView[]> {
  const ids = rows.map((row) => row.id);
  const { notices, payments } = await pageDetails(db, ids);
  const externals = await externalIdsOf(db, 'lease', ids);
  return rows.map((row) => {
    const digits = storedDigits(row.currency);
    const rent = { amount: money(row.rent_amount, digits), period: row.rent_period };
    const term = { start: row.starts_on, end: row.ends_on };
    return {
      reference: row.reference,
      home: row.home_slug,
      renter: row.renter_reference,
      landlord: row.landlord_reference,
      status: row.status,
      term,
      rent: { ...rent, term_total: termRent(rent, term, digits).toFixed(digits) },
      deposit: {
        amount: money(row.deposit_amount, digits),
        outcome: row.deposit_outcome,
        deductions: maybeMoney(row.deposit_deductions, digits),
        reason: row.deposit_reason,
      },
      registration: row.registration,
      notice: {
        period_days: row.notice_days,
        given: notices
          .filter((n) => n.lease_id === row.id)
          .map((n) => ({
            given_on: n.given_on,
            by: n.given_by,
            intent: n.intent,
            vacate_on: n.vacate_on,
            proposed_rent: maybeMoney(n.proposed_rent, digits),
            text: n.text,
            recorded_at: iso(n.recorded_at),
          })),
      },
      renewal: { terms: row.renewal_terms, renews: row.renews_reference, renewed_by: row.renewal_reference },
      schedule: {
        payments: row.schedule_count,
        rows: payments
          .filter((p) => p.lease_id === row.id)
          .map((p) => ({
            payment_id: p.id,
            due_on: p.due_on,
            amount: money(p.amount, digits),
            status: p.status,
            cheque: p.cheque_number === null || p.cheque_bank === null ? null : { number: p.cheque_number, bank: p.cheque_bank },
          })),
      },
      fee:
        row.fee_kind === null || row.fee_value === null ? null : { kind: row.fee_kind, value: new Big(row.fee_value).toString() },
      handler: row.handler_id,
      notes: row.notes,
      external: externals.get(row.id) ?? [],
      warnings: row.warnings,
      activated_at: iso(row.activated_at),
      ended_on: row.ended_on,
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
    };
  });
}

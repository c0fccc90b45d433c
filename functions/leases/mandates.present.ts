import type { z } from '@hono/zod-openapi';
import { sql } from 'kysely';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { amountShown } from '../../lib/money';
import type { RentMandateRow } from '../../schema/leases/db';
import type { RentMandateSchema } from '../../schema/leases/mandates';

export type RentMandateView = z.infer<typeof RentMandateSchema>;

/** A mandate row as selectMandates gives it: with its lease's reference and the company's currency. */
export type RentMandateRecord = RentMandateRow & { lease_reference: string; currency: string };

/** A mandate row's own columns as a write statement returns them (dates, money and version as text; never the sealed IBAN). */
export const mandateColumns = (alias: string) =>
  sql.raw(`${alias}.*, ${alias}.starts_on::text as starts_on,
    ${alias}.ends_on::text as ends_on, ${alias}.max_amount::text as max_amount, ${alias}.version::text as version`);

/** A company's mandates with their lease's reference and the currency. Dates, money and the version as text. */
export function selectMandates(executor: Executor, companyId: string) {
  return executor
    .selectFrom('rent_mandates')
    .innerJoin('leases as lease', 'lease.id', 'rent_mandates.lease_id')
    .innerJoin('companies as company', 'company.id', 'rent_mandates.company_id')
    .selectAll('rent_mandates')
    .select([
      sql<string>`rent_mandates.starts_on::text`.as('starts_on'),
      sql<string>`rent_mandates.ends_on::text`.as('ends_on'),
      sql<string>`rent_mandates.max_amount::text`.as('max_amount'),
      sql<string>`rent_mandates.version::text`.as('version'),
      'lease.reference as lease_reference',
      'company.currency as currency',
    ])
    .where('rent_mandates.company_id', '=', companyId);
}

/** A mandate as the API shows it: the IBAN by its last four characters only, never the sealed value. */
export function presentMandate(row: RentMandateRecord): RentMandateView {
  return {
    mandate_id: row.id,
    lease: row.lease_reference,
    mandate_reference: row.mandate_reference,
    status: row.status,
    bank: { name: row.bank_name, code: row.bank_code },
    account_holder: row.account_holder,
    iban_last4: row.iban_last4,
    max_amount: amountShown(row.max_amount, row.currency),
    starts_on: row.starts_on,
    ends_on: row.ends_on,
    activated_at: iso(row.activated_at),
    cancelled_at: iso(row.cancelled_at),
    rejected_at: iso(row.rejected_at),
    expired_at: iso(row.expired_at),
    created_at: iso(row.created_at) as string,
    updated_at: iso(row.updated_at) as string,
  };
}

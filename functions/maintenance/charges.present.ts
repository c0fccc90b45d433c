import type { z } from '@hono/zod-openapi';
import Big from 'big.js';
import { sql } from 'kysely';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { type ExternalLink, externalIdsColumn, shownExternalIds } from '../../lib/external-ids';
import { amountOut } from '../../lib/money';
import type { ChargeSchema, ChargesQueryValue } from '../../schema/maintenance/charges';
import type { JobChargeRow } from '../../schema/maintenance/db';

export type ChargeView = z.infer<typeof ChargeSchema>;

/** A charge's row as shown (selectCharges): its job's reference, home, booked owner, currency and external ids. */
export type ChargeRecord = JobChargeRow & {
  job_reference: string;
  home_slug: string;
  owner_reference: string | null;
  currency: string;
  external: ExternalLink[];
};

/** A company's job charges with what their answer shows joined (subqueries: one query for a whole page). */
export function selectCharges(executor: Executor, companyId: string) {
  return executor
    .selectFrom('job_charges')
    .innerJoin('jobs as job', 'job.id', 'job_charges.job_id')
    .innerJoin('listings as home', 'home.id', 'job.listing_id')
    .innerJoin('companies as company', 'company.id', 'job_charges.company_id')
    .leftJoin('contacts as owner', 'owner.id', 'job_charges.booked_owner_id')
    .selectAll('job_charges')
    .select([
      sql<string>`job_charges.cost::text`.as('cost'),
      sql<string>`job_charges.booked_on::text`.as('booked_on'),
      sql<string | null>`job_charges.paid_on::text`.as('paid_on'),
      sql<string | null>`job_charges.cancelled_on::text`.as('cancelled_on'),
      sql<string | null>`job_charges.tax_rate::text`.as('tax_rate'),
      sql<string | null>`job_charges.net_amount::text`.as('net_amount'),
      sql<string | null>`job_charges.vat_amount::text`.as('vat_amount'),
      'job.reference as job_reference',
      'home.slug_en as home_slug',
      'owner.reference as owner_reference',
      'company.currency as currency',
      externalIdsColumn('job_charge', 'job_charges.id').as('external'),
    ])
    .where('job_charges.company_id', '=', companyId);
}

/** The list's filters: job, payer, owner, status, and `booked_on` / `cancelled_on` ranges (both days included). */
export function filterCharges(select: ReturnType<typeof selectCharges>, query: Partial<ChargesQueryValue>) {
  return select
    .$if(query.job !== undefined, (q) => q.where('job.reference', '=', query.job!))
    .$if(query.payer !== undefined, (q) => q.where('job_charges.payer', '=', query.payer!))
    .$if(query.owner !== undefined, (q) => q.where('owner.reference', '=', query.owner!))
    .$if(query.status !== undefined, (q) => q.where('job_charges.status', '=', query.status!))
    .$if(query.booked_from !== undefined, (q) => q.where('job_charges.booked_on', '>=', query.booked_from!))
    .$if(query.booked_to !== undefined, (q) => q.where('job_charges.booked_on', '<=', query.booked_to!))
    .$if(query.cancelled_from !== undefined, (q) => q.where('job_charges.cancelled_on', '>=', query.cancelled_from!))
    .$if(query.cancelled_to !== undefined, (q) => q.where('job_charges.cancelled_on', '<=', query.cancelled_to!));
}

/** A charge as the API shows it (from its row alone: no query). */
export function presentCharge(row: ChargeRecord): ChargeView {
  return {
    charge_id: row.id,
    job: row.job_reference,
    home: row.home_slug,
    cost: amountOut(row.cost, row.currency) as string,
    payer: row.payer,
    description: row.description,
    status: row.status,
    booked_on: row.booked_on,
    booked_owner: row.owner_reference,
    paid_on: row.paid_on,
    cancelled_on: row.cancelled_on,
    tax:
      row.tax_category === null || row.net_amount === null || row.vat_amount === null
        ? null
        : {
            category: row.tax_category,
            rate: row.tax_rate === null ? null : new Big(row.tax_rate).toString(),
            net: amountOut(row.net_amount, row.currency) as string,
            vat: amountOut(row.vat_amount, row.currency) as string,
          },
    external: shownExternalIds(row.external),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

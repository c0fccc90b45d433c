import type { z } from '@hono/zod-openapi';
import Big from 'big.js';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { externalIdsOf } from '../../lib/external-ids';
import { storedDigits } from '../../lib/money';
import type { ChargeSchema } from '../../schema/maintenance/charges';
import type { JobChargeRow } from '../../schema/maintenance/db';

export type ChargeView = z.infer<typeof ChargeSchema>;

/** A charge row as selectCharges gives it (charges.ts). */
export type ChargeRecord = JobChargeRow & {
  job_reference: string;
  home_slug: string;
  owner_reference: string | null;
  currency: string;
};

/** A page of charges as the API shows them, with their external ids (one query for the page). */
export async function presentCharges(db: Executor, rows: ChargeRecord[]): Promise<ChargeView[]> {
  const externals = await externalIdsOf(
    db,
    'job_charge',
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    charge_id: row.id,
    job: row.job_reference,
    home: row.home_slug,
    cost: new Big(row.cost).toFixed(storedDigits(row.currency)),
    payer: row.payer,
    description: row.description,
    status: row.status,
    booked_on: row.booked_on,
    booked_owner: row.owner_reference,
    paid_on: row.paid_on,
    cancelled_on: row.cancelled_on,
    external: externals.get(row.id) ?? [],
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  }));
}

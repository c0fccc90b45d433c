import type { z } from '@hono/zod-openapi';
import Big from 'big.js';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { externalIdsOf } from '../../lib/external-ids';
import { storedDigits } from '../../lib/money';
import type { DealRow, PipelinePurpose, StageKind } from '../../schema/pipelines/db';
import type { DealSchema } from '../../schema/pipelines/deals';

export type DealView = z.infer<typeof DealSchema>;

/** A deal row as selectDeals gives it (deals.ts). */
export type DealRecord = Omit<DealRow, 'value' | 'commission' | 'expected_close'> & {
  value: string | null;
  commission: string | null;
  expected_close: string | null;
  pipeline_key: string;
  pipeline_purpose: PipelinePurpose;
  stage_key: string;
  stage_kind: StageKind;
  stage_probability: number;
  person_reference: string;
  lead_reference: string | null;
  home_slug: string | null;
  owner_reference: string | null;
  currency: string;
};

const money = (value: string | null, digits: number) => (value === null ? null : new Big(value).toFixed(digits));

/** A page of deals as the API shows them, with their external ids (one more query for the page). */
export async function presentDeals(db: Executor, rows: DealRecord[]): Promise<DealView[]> {
  const externals = await externalIdsOf(
    db,
    'deal',
    rows.map((row) => row.id),
  );
  return rows.map((row) => {
    const digits = storedDigits(row.currency);
    return {
      reference: row.reference,
      pipeline: row.pipeline_key,
      stage: row.stage_key,
      status: row.stage_kind,
      person: row.person_reference,
      enquiry: row.lead_reference,
      home: row.home_slug,
      owner: row.owner_reference,
      handler: row.handler_id,
      department: row.department_key,
      title: row.title,
      value: money(row.value, digits),
      money: { currency: row.currency, commission: money(row.commission, digits) },
      probability: row.probability ?? row.stage_probability,
      probability_source: row.probability === null ? 'stage' : 'deal',
      expected_close: row.expected_close,
      outcome: row.closed_at === null ? null : { closed_at: iso(row.closed_at), reason: row.close_reason },
      external: externals.get(row.id) ?? [],
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
    };
  });
}

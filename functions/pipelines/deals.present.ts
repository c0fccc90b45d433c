import type { z } from '@hono/zod-openapi';
import { sql } from 'kysely';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { type ExternalLink, externalIdsColumn, shownExternalIds } from '../../lib/external-ids';
import { amountOut } from '../../lib/money';
import type { DealRow, PipelinePurpose, StageKind } from '../../schema/pipelines/db';
import type { DealSchema } from '../../schema/pipelines/deals';

export type DealView = z.infer<typeof DealSchema>;

/** A deal's row as shown (selectDeals). */
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
  external: ExternalLink[];
};

/**
 * A company's deals with what their answer shows joined: the pipeline's and stage's keys, the stage's kind (the
 * deal's status) and probability, the pipeline's purpose, the references of the person, enquiry and owner, the home's
 * English slug, the company's currency and the external ids (subqueries: one query for a whole page).
 */
export function selectDeals(executor: Executor, companyId: string) {
  return executor
    .selectFrom('deals')
    .innerJoin('pipelines as pipeline', 'pipeline.id', 'deals.pipeline_id')
    .innerJoin('pipeline_stages as stage', 'stage.id', 'deals.stage_id')
    .innerJoin('contacts as person', 'person.id', 'deals.contact_id')
    .innerJoin('companies as company', 'company.id', 'deals.company_id')
    .leftJoin('leads as lead', 'lead.id', 'deals.lead_id')
    .leftJoin('listings as home', 'home.id', 'deals.listing_id')
    .leftJoin('contacts as owner', 'owner.id', 'deals.owner_id')
    .selectAll('deals')
    .select([
      sql<string | null>`deals.expected_close::text`.as('expected_close'),
      sql<string | null>`deals.value::text`.as('value'),
      sql<string | null>`deals.commission::text`.as('commission'),
      sql<string>`deals.version::text`.as('version'),
      'pipeline.key as pipeline_key',
      'pipeline.purpose as pipeline_purpose',
      'stage.key as stage_key',
      'stage.kind as stage_kind',
      'stage.probability as stage_probability',
      'person.reference as person_reference',
      'lead.reference as lead_reference',
      'home.slug_en as home_slug',
      'owner.reference as owner_reference',
      'company.currency as currency',
      externalIdsColumn('deal', 'deals.id').as('external'),
    ])
    .where('deals.company_id', '=', companyId);
}

/** A deal as the API shows it (from its row alone: no query). */
export function presentDeal(row: DealRecord): DealView {
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
    value: amountOut(row.value, row.currency),
    money: { currency: row.currency, commission: amountOut(row.commission, row.currency) },
    probability: row.probability ?? row.stage_probability,
    probability_source: row.probability === null ? 'stage' : 'deal',
    expected_close: row.expected_close,
    outcome: row.closed_at === null ? null : { closed_at: iso(row.closed_at), reason: row.close_reason },
    external: shownExternalIds(row.external),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

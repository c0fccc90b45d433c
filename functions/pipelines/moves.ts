import Big from 'big.js';
import type { Trx } from '../../lib/db/index';
import { type CausedBy, recordEvent } from '../../lib/events';
import { fieldProblem } from '../../lib/parties';
import type { StageKind } from '../../schema/pipelines/db';
import type { MoveInputValue } from '../../schema/pipelines/deals';
import type { Company } from '../../schema/platform/db';
import { lockDeal } from './deals';

/** A company rule a move broke: the move happened all the same (DESIGN.md, "Warnings"). */
export type Warning = { code: 'no_value' | 'no_lease' | 'no_lost_reason' | 'reopened'; message: string };

/** What the warnings of a move read. */
export type MoveFacts = {
  from: StageKind;
  to: StageKind;
  purpose: 'sales' | 'leasing';
  value: string | null;
  reason: string | undefined;
  hasLease: boolean;
};

/** The warnings of a move, in this order: `reopened`, `no_value`, `no_lease`, `no_lost_reason`. Pure. */
export function moveWarnings(facts: MoveFacts): Warning[] {
  const warnings: Warning[] = [];
  if (facts.from !== 'open' && facts.to === 'open') {
    warnings.push({ code: 'reopened', message: `The deal was ${facts.from} and is open again.` });
  }
  if (facts.to === 'won' && (facts.value === null || new Big(facts.value).eq(0))) {
    warnings.push({ code: 'no_value', message: 'The deal was won without a value.' });
  }
  if (facts.to === 'won' && facts.purpose === 'leasing' && !facts.hasLease) {
    warnings.push({ code: 'no_lease', message: 'The leasing deal was won, but its home has no lease of its person yet.' });
  }
  if (facts.to === 'lost' && facts.reason === undefined) {
    warnings.push({ code: 'no_lost_reason', message: 'The deal was lost without a reason.' });
  }
  return warnings;
}

/**
 * A deal's lease: a draft or active lease of the deal's home with the deal's person as its renter (leases are read
 * from their tables; the leases group is not imported). A deal without a home has none.
 */
async function hasLease(trx: Trx, deal: { company_id: string; listing_id: string | null; contact_id: string }) {
  if (deal.listing_id === null) return false;
  const lease = await trx
    .selectFrom('leases')
    .select('id')
    .where('company_id', '=', deal.company_id)
    .where('listing_id', '=', deal.listing_id)
    .where('renter_id', '=', deal.contact_id)
    .where('status', 'in', ['draft', 'active'])
    .limit(1)
    .executeTakeFirst();
  return lease !== undefined;
}

/**
 * Moves a deal to a stage of its pipeline by key, in any direction (400 at `stage` for a key the pipeline does not
 * have). A won or lost stage closes the deal (`outcome` set, `deal.won` / `deal.lost` when its status changes); an
 * open stage reopens a closed one. Every move to another stage records `deal.stage_changed`. Moving to the stage it
 * is on changes nothing and warns nothing. Returns the deal's id and the move's warnings.
 */
export async function moveDeal(
  trx: Trx,
  company: Company,
  reference: string,
  input: MoveInputValue,
  now: Date,
  causedBy: CausedBy,
): Promise<{ id: string; warnings: Warning[] }> {
  const deal = await lockDeal(trx, company.id, reference);
  const stage = await trx
    .selectFrom('pipeline_stages')
    .select(['id', 'kind'])
    .where('pipeline_id', '=', deal.pipeline_id)
    .where('key', '=', input.stage)
    // Held until the move commits: an admin deleting the stage, or changing its kind, waits and then sees the deal on
    // it (409 stage_in_use); one that committed first leaves no stage here (400 unknown_stage), never a 500.
    .forKeyShare()
    .executeTakeFirst();
  if (!stage) throw fieldProblem('stage', 'unknown_stage', `${input.stage} is not a stage of the pipeline ${deal.pipeline_key}.`);
  if (stage.id === deal.stage_id) return { id: deal.id, warnings: [] };
  const from = deal.stage_kind;
  const to = stage.kind;
  const warnings = moveWarnings({
    from,
    to,
    purpose: deal.pipeline_purpose,
    value: deal.value,
    reason: input.reason,
    hasLease: to === 'won' && deal.pipeline_purpose === 'leasing' ? await hasLease(trx, deal) : true,
  });
  const closing = to !== 'open' && from !== to;
  const outcome =
    to === 'open'
      ? { closed_at: null, close_reason: null }
      : closing
        ? { closed_at: now, close_reason: input.reason ?? null }
        : { close_reason: input.reason ?? deal.close_reason };
  await trx
    .updateTable('deals')
    .set({ stage_id: stage.id, ...outcome })
    .where('id', '=', deal.id)
    .execute();
  const event = { companyId: company.id, causedBy, data: { reference: deal.reference } };
  await recordEvent(trx, { ...event, type: 'deal.stage_changed' });
  if (closing) await recordEvent(trx, { ...event, type: to === 'won' ? 'deal.won' : 'deal.lost' });
  return { id: deal.id, warnings };
}

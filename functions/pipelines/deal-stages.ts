import Big from 'big.js';
import { sql } from 'kysely';
import { eventCtes, newEventId } from '../../lib/events';
import { writeLockedWhenStale } from '../../lib/locked-write';
import { fieldProblem } from '../../lib/named-records';
import type { Written } from '../../lib/resources';
import { checkMove, statusMachine } from '../../lib/transitions';
import type { WriteScope } from '../../lib/write';
import type { StageKind } from '../../schema/pipelines/db';
import type { MoveInputValue } from '../../schema/pipelines/deals';
import { dealUnchanged, lockDeal, readDeal, writeDealChange } from './deals';
import type { DealRecord } from './deals.present';

/**
 * A deal's status is its stage's kind (lib/transitions.ts): a deal moves to any stage of its pipeline, in any
 * direction — a won or lost stage closes it, an open stage reopens it (with the warning `reopened`).
 */
export const dealMachine = statusMachine<StageKind>('deal', {
  open: ['open', 'won', 'lost'],
  won: ['open', 'won', 'lost'],
  lost: ['open', 'won', 'lost'],
});

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

/** What a move reads beside the deal: the stage named, and whether the deal's person has a lease of its home. */
type MoveRead = { to_id: string | null; to_kind: StageKind | null; to_probability: number | null; has_lease: boolean };

/**
 * Moves a deal to a stage of its pipeline by key, in any direction (400 at `stage` for a key the pipeline does not
 * have). A won or lost stage closes the deal (`outcome` set, `deal.won` / `deal.lost` when its status changes); an
 * open stage reopens a closed one. Every move to another stage records `deal.stage_changed`. Moving to the stage it
 * is on changes nothing and warns nothing. A deal's lease: a draft or active lease of its home with its person as the
 * renter (read from the leases table; the leases group is not imported). The write holds the stage (`for key share`)
 * until it commits: an admin deleting the stage or changing its kind meanwhile waits and then sees the deal on it
 * (409 stage_in_use); one that committed first makes the write stale, and its next read answers 400 unknown_stage.
 */
export async function moveDeal(
  scope: WriteScope,
  reference: string,
  input: MoveInputValue,
): Promise<{ written: Written<DealRecord>; warnings: Warning[] }> {
  let warnings: Warning[] = [];
  const written = await writeLockedWhenStale(
    scope,
    (trx) => lockDeal(trx, scope.company.id, reference),
    async (attempt) => {
      const stage = sql`from pipeline_stages s where s.pipeline_id = deals.pipeline_id and s.key = ${input.stage}`;
      const deal = await readDeal<MoveRead>(attempt, reference, [
        sql`(select s.id ${stage})`.as('to_id'),
        sql`(select s.kind ${stage})`.as('to_kind'),
        sql`(select s.probability ${stage})`.as('to_probability'),
        sql`exists (select from leases l where l.company_id = deals.company_id and l.listing_id = deals.listing_id
          and l.renter_id = deals.contact_id and l.status in ('draft', 'active'))`.as('has_lease'),
      ]);
      const { to_id, to_kind, to_probability, has_lease, holder, ...current } = deal;
      if (to_id === null || to_kind === null) {
        throw fieldProblem('stage', 'unknown_stage', `${input.stage} is not a stage of the pipeline ${deal.pipeline_key}.`);
      }
      warnings = [];
      if (to_id === deal.stage_id) return dealUnchanged(attempt, current);
      const from = deal.stage_kind;
      checkMove(dealMachine, reference, from, to_kind, 'stage');
      warnings = moveWarnings({
        from,
        to: to_kind,
        purpose: deal.pipeline_purpose,
        value: deal.value,
        reason: input.reason,
        hasLease: has_lease,
      });
      const closing = to_kind !== 'open' && from !== to_kind;
      const outcome =
        to_kind === 'open'
          ? { closed_at: null, close_reason: null }
          : closing
            ? { closed_at: attempt.now, close_reason: input.reason ?? null }
            : { close_reason: input.reason ?? deal.close_reason };
      const event = { companyId: attempt.company.id, causedBy: attempt.causedBy, data: { reference: deal.reference } };
      const stageHeld = sql<boolean>`exists (select from pipeline_stages where id = ${to_id}::uuid and kind = ${to_kind} for key share)`;
      return writeDealChange(
        attempt,
        current,
        { stage_id: to_id, ...outcome },
        {
          guards: [stageHeld],
          ctes: [
            eventCtes('moved', newEventId(), { ...event, type: 'deal.stage_changed' }, 'changed'),
            closing &&
              eventCtes('closed', newEventId(), { ...event, type: to_kind === 'won' ? 'deal.won' : 'deal.lost' }, 'changed'),
          ],
          shown: { stage_key: input.stage, stage_kind: to_kind, stage_probability: to_probability as number },
        },
      );
    },
  );
  return { written, warnings };
}

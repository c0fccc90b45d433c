import { sql, type Updateable } from 'kysely';
import type { Db, Executor, Trx } from '../../lib/db/index';
import { readLocked } from '../../lib/db/locked';
import { ApiError, notFound } from '../../lib/errors';
import { type CausedBy, recordEvent } from '../../lib/events';
import { linkExternal, linkNewRecord, recordIdByExternal } from '../../lib/external-ids';
import { checkHandler, fieldProblem, resolveListing } from '../../lib/parties';
import { newReference } from '../../lib/references';
import type { ViewingStatus, ViewingsTable } from '../../schema/pipelines/db';
import type { ViewingInputValue, ViewingPatchValue } from '../../schema/pipelines/viewings';
import type { Company } from '../../schema/platform/db';

/** A viewing still planned this long after its time has been missed (scheduled work marks it). */
export const missedAfterHours = 24;

/**
 * A company's viewings with the deal's reference and the home's English slug. `rows`: the viewings to read (all by
 * default), e.g. one locked bare row (lib/db/locked.ts).
 */
export function selectViewings(executor: Executor, companyId: string, rows = executor.selectFrom('viewings').selectAll()) {
  return executor
    .selectFrom(rows.as('viewings'))
    .innerJoin('deals as deal', 'deal.id', 'viewings.deal_id')
    .innerJoin('listings as home', 'home.id', 'viewings.listing_id')
    .selectAll('viewings')
    .select([sql<string>`viewings.version::text`.as('version'), 'deal.reference as deal_reference', 'home.slug_en as home_slug'])
    .where('viewings.company_id', '=', companyId);
}

const viewingEvent = (company: Company, type: string, reference: string, causedBy: CausedBy) => ({
  companyId: company.id,
  type,
  causedBy,
  // A reference only: the feedback never goes into an event.
  data: { reference },
});

/**
 * Plans a viewing on a deal (`viewing.planned`), of the deal's home unless another is named (400 `no_home` when the
 * deal has none). Sent again with the same external id: the first viewing, nothing written. Run it in
 * `transactionRetryingConflict`.
 */
export async function createViewing(
  trx: Trx,
  company: Company,
  input: ViewingInputValue,
  causedBy: CausedBy,
): Promise<{ id: string; created: boolean }> {
  if (input.external) {
    const existing = await recordIdByExternal(trx, company.id, 'viewing', input.external);
    if (existing) return { id: existing, created: false };
  }
  const deal = await trx
    .selectFrom('deals')
    .select(['id', 'listing_id'])
    .where('company_id', '=', company.id)
    .where('reference', '=', input.deal)
    .executeTakeFirst();
  if (!deal) throw fieldProblem('deal', 'unknown_reference', `${input.deal} is not a deal of this company.`);
  const listingId = input.home ? (await resolveListing(trx, company.id, input.home)).id : deal.listing_id;
  if (listingId === null) throw fieldProblem('home', 'no_home', `The deal ${input.deal} names no home: send the home shown.`);
  if (input.shown_by !== undefined) await checkHandler(trx, company.id, input.shown_by, 'shown_by');
  const viewing = await trx
    .insertInto('viewings')
    .values({
      company_id: company.id,
      reference: newReference('V'),
      deal_id: deal.id,
      listing_id: listingId,
      starts_at: input.time,
      shown_by: input.shown_by ?? null,
    })
    .returning(['id', 'reference'])
    .executeTakeFirstOrThrow();
  if (input.external) await linkNewRecord(trx, company.id, 'viewing', viewing.id, input.external);
  await recordEvent(trx, viewingEvent(company, 'viewing.planned', viewing.reference, causedBy));
  return { id: viewing.id, created: true };
}

/** Where a status sent by PATCH may come from (docs/api-reference.md, "Viewings"). */
const endsFrom: Record<'done' | 'cancelled' | 'missed', readonly ViewingStatus[]> = {
  done: ['planned', 'missed'],
  cancelled: ['planned', 'missed'],
  missed: ['planned'],
};

/**
 * PATCH of a viewing. Time, home and who shows it change while it is planned or missed (a missed viewing given a new
 * time is planned again: `viewing.planned`); feedback changes unless it was cancelled; `status` ends it (`done`,
 * `cancelled`, `missed`) from the states `endsFrom` allows, else 409 `invalid_transition`. A cancelled viewing takes
 * no change but an external id. One event per write: the new status's, else `viewing.updated` when anything changed.
 */
export async function updateViewing(
  trx: Trx,
  company: Company,
  reference: string,
  input: ViewingPatchValue,
  now: Date,
  causedBy: CausedBy,
): Promise<string> {
  const row = trx.selectFrom('viewings').selectAll().where('company_id', '=', company.id).where('reference', '=', reference);
  const viewing = await readLocked(() => selectViewings(trx, company.id, row.forUpdate()).executeTakeFirst());
  if (!viewing) throw notFound(`The viewing ${reference}`);
  const { status } = viewing;
  const refuse = (what: string) => new ApiError('invalid_transition', `The viewing ${reference} is ${status}: ${what}.`);
  const set: Updateable<ViewingsTable> = {};
  const moving = input.time !== undefined || input.home !== undefined || input.shown_by !== undefined;
  if (moving && status !== 'planned' && status !== 'missed') throw refuse('its time, home and who shows it no longer change');
  if (input.feedback !== undefined && status === 'cancelled') throw refuse('it takes no feedback');
  if (input.time !== undefined && input.time !== viewing.starts_at.toISOString()) set.starts_at = input.time;
  if (input.home !== undefined) {
    const listingId = (await resolveListing(trx, company.id, input.home)).id;
    if (listingId !== viewing.listing_id) set.listing_id = listingId;
  }
  if (input.shown_by !== undefined && input.shown_by !== viewing.shown_by) {
    if (input.shown_by !== null) await checkHandler(trx, company.id, input.shown_by, 'shown_by');
    set.shown_by = input.shown_by;
  }
  if (input.feedback !== undefined && input.feedback !== viewing.feedback) set.feedback = input.feedback;
  let next: ViewingStatus = status;
  if (input.status !== undefined && input.status !== status) {
    if (!endsFrom[input.status].includes(status)) throw refuse(`it cannot become ${input.status}`);
    next = input.status;
  } else if (status === 'missed' && set.starts_at !== undefined) {
    next = 'planned';
  }
  if (next !== status) {
    set.status = next;
    if (next === 'done') set.done_at = now;
    if (next === 'cancelled') set.cancelled_at = now;
    set.missed_at = next === 'missed' ? now : next === 'planned' ? null : viewing.missed_at;
  }
  const linked = input.external ? await linkExternal(trx, company.id, 'viewing', viewing.id, input.external) : false;
  if (Object.keys(set).length === 0) {
    if (linked)
      await trx.updateTable('viewings').set({ updated_at: sql`clock_timestamp()` }).where('id', '=', viewing.id).execute();
    return viewing.id;
  }
  await trx.updateTable('viewings').set(set).where('id', '=', viewing.id).execute();
  const type = next !== status ? `viewing.${next}` : 'viewing.updated';
  await recordEvent(trx, viewingEvent(company, type, viewing.reference, causedBy));
  return viewing.id;
}

/**
 * Scheduled work: every viewing still planned `missedAfterHours` after its time becomes `missed` (`viewing.missed`,
 * caused by `system`), once. Rows are claimed with SKIP LOCKED, so runs in several places at once share the work.
 * Returns the references marked.
 */
export async function markMissedViewings(db: Db, now: Date): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    const cutoff = new Date(now.getTime() - missedAfterHours * 3_600_000);
    const claimed = await trx
      .selectFrom('viewings')
      .select('id')
      .where('status', '=', 'planned')
      .where('starts_at', '<=', cutoff)
      .forUpdate()
      .skipLocked()
      .execute();
    if (claimed.length === 0) return [];
    const marked = await trx
      .updateTable('viewings')
      .set({ status: 'missed', missed_at: now })
      .where(
        'id',
        'in',
        claimed.map((row) => row.id),
      )
      .returning(['company_id', 'reference'])
      .execute();
    for (const row of marked) {
      await recordEvent(trx, {
        companyId: row.company_id,
        type: 'viewing.missed',
        causedBy: 'system',
        data: { reference: row.reference },
      });
    }
    return marked.map((row) => row.reference);
  });
}

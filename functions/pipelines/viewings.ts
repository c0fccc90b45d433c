import { type AliasedRawBuilder, sql, type Updateable } from 'kysely';
import { readAuditCte } from '../../lib/audit';
import type { Db, Trx } from '../../lib/db/index';
import { notFound } from '../../lib/errors';
import { eventCtes, type EventInput, type EventType, newEventId, recordEvent } from '../../lib/events';
import { externalHolder, linkCte, linkFor, linksAfter } from '../../lib/external-ids';
import { writeLockedWhenStale } from '../../lib/locked-write';
import { fieldProblem, type MemberRule, memberKnown, unknownMember, unknownReference } from '../../lib/named-records';
import { checkIfMatch } from '../../lib/preconditions';
import { newReference } from '../../lib/references';
import type { Written } from '../../lib/resources';
import { checkMove, checkTakes, statusMachine } from '../../lib/transitions';
import { type Stale, stale, type WriteScope, writeStatement } from '../../lib/write';
import type { ViewingRow, ViewingStatus, ViewingsTable } from '../../schema/pipelines/db';
import type { ViewingInputValue, ViewingPatchValue } from '../../schema/pipelines/viewings';
import { selectViewings, type ViewingRecord } from './viewings.present';
import { stamp } from '../../lib/clock';

/** A viewing still planned this long after its time has been missed (scheduled work marks it). */
export const missedAfterHours = 24;

/**
 * A viewing's status (lib/transitions.ts; docs/api-reference.md, "Viewings"): a planned viewing is done, cancelled or
 * missed; a missed one is done or cancelled after all, or planned again (given a new time, home or who shows it);
 * done and cancelled are final.
 */
export const viewingMachine = statusMachine<ViewingStatus>('viewing', {
  planned: ['done', 'cancelled', 'missed'],
  missed: ['planned', 'done', 'cancelled'],
  done: [],
  cancelled: [],
});

/** The statuses in which a viewing takes feedback: all but cancelled. */
const feedbackTaken: readonly ViewingStatus[] = ['planned', 'missed', 'done'];

/** Who may show a viewing: any member of the company. */
const shownByRule: MemberRule = { path: 'shown_by' };

/** The event of a viewing's write: a reference only, the feedback never goes into an event. */
const viewingEvent = (scope: WriteScope, type: EventType, reference: string): EventInput => ({
  companyId: scope.company.id,
  type,
  causedBy: scope.causedBy,
  data: { reference },
});

/** The row of a write statement's CTE with its version as text, as selectViewings gives it. */
const shownRow = (cte: string) => sql.raw(`select *, version::text as version from ${cte}`);

/** A viewing answered as read, nothing written but the audit of the answer. */
async function viewingUnchanged(scope: WriteScope, viewing: ViewingRecord, created = false): Promise<Written<ViewingRecord>> {
  const audit = readAuditCte('answer_read', scope.answerRead, [viewing.reference]);
  if (audit) await writeStatement([audit], sql`select 1`).execute(scope.db);
  return { row: viewing, created, version: viewing.version };
}

/**
 * The columns of a read resolving the home and member a body names. A home not named is a constant of the text, not a
 * null parameter whose lookup each run's own plan would fold away (PostgreSQL would then plan the read anew on every
 * run: functions/pipelines/deals.ts namedColumns).
 */
function namedColumns(
  companyId: string,
  input: { home?: string; shown_by?: string | null },
): AliasedRawBuilder<unknown, string>[] {
  return [
    (input.home
      ? sql`(select id from listings where company_id = ${companyId}::uuid and slug_en = ${input.home}::text)`
      : sql`null::uuid`
    ).as('named_home_id'),
    (typeof input.shown_by === 'string' ? memberKnown(companyId, input.shown_by, shownByRule) : sql`true`).as('shown_by_known'),
  ];
}
type NamedRead = { named_home_id: string | null; shown_by_known: boolean };

/** The home a body names, as the read found it (400 at `home` when unknown). */
function namedHome(read: NamedRead, home: string): string {
  if (read.named_home_id === null) throw unknownReference('home', `${home} is not a listing of this company.`);
  return read.named_home_id;
}

/**
 * Plans a viewing on a deal (`viewing.planned`), of the deal's home unless another is named (400 `no_home` when the
 * deal has none). Sent again with the same external id: the first viewing (read on its own, a trip more on a retry
 * only), nothing written but the audit of the answer. Two round trips: the read, then the viewing, its link and event
 * in one statement.
 */
export async function addViewing(scope: WriteScope, input: ViewingInputValue): Promise<Written<ViewingRecord> | Stale> {
  const { db, company } = scope;
  const existing = input.external ? externalHolder(company.id, 'viewing', input.external).holder : sql`null::text`;
  const { rows } = await sql<Record<string, unknown>>`
    select k.existing, deal.id as deal_id_read, deal.listing_id as deal_listing_id, deal_home.slug_en as deal_home_slug,
      ${sql.join(namedColumns(company.id, input))}
    from (select ${existing} as existing) k
    left join deals deal on deal.company_id = ${company.id}::uuid and deal.reference = ${input.deal}
    left join listings deal_home on deal_home.id = deal.listing_id
  `.execute(db);
  const read = rows[0] as NamedRead & {
    existing: string | null;
    deal_id_read: string | null;
    deal_listing_id: string | null;
    deal_home_slug: string | null;
  };
  if (read.existing !== null) {
    // Sent before (a retry): the viewing is read on its own, as a deal's and a job's create do.
    const sent = await selectViewings(db, company.id).where('viewings.id', '=', read.existing).executeTakeFirst();
    if (sent) return viewingUnchanged(scope, sent as ViewingRecord);
  }
  if (read.deal_id_read === null) throw unknownReference('deal', `${input.deal} is not a deal of this company.`);
  const listingId = input.home ? namedHome(read, input.home) : read.deal_listing_id;
  if (listingId === null) throw fieldProblem('home', 'no_home', `The deal ${input.deal} names no home: send the home shown.`);
  if (input.shown_by !== undefined && !read.shown_by_known) throw unknownMember(input.shown_by, shownByRule);
  const reference = newReference('V');
  const insert = db
    .insertInto('viewings')
    .values({
      company_id: company.id,
      reference,
      deal_id: read.deal_id_read,
      listing_id: listingId,
      starts_at: input.time,
      shown_by: input.shown_by ?? null,
    })
    .returningAll();
  const link = linkFor('viewing', input.external, null, undefined);
  const { rows: written } = await writeStatement(
    [
      sql`added as (${insert})`,
      linkCte('linked', company.id, 'viewing', link, 'added'),
      eventCtes('planned', newEventId(), viewingEvent(scope, 'viewing.planned', reference), 'added'),
      readAuditCte('answer_read', scope.answerRead, [reference]),
    ],
    shownRow('added'),
  ).execute(db);
  const row = written[0] as ViewingRow | undefined;
  if (!row) throw new Error('the new viewing was not stored');
  const record: ViewingRecord = {
    ...row,
    deal_reference: input.deal,
    home_slug: (input.home ?? read.deal_home_slug) as string,
    external: linksAfter([], link, null),
  };
  return { row: record, created: true, version: row.version };
}

/** Locks a viewing's bare row for a write run again under a burst (lib/locked-write.ts). */
async function lockViewing(trx: Trx, companyId: string, reference: string): Promise<void> {
  await sql`select from viewings where company_id = ${companyId}::uuid and reference = ${reference} for update`.execute(trx);
}

/**
 * PATCH of a viewing. Time, home and who shows it change while it is planned or missed (a missed viewing given a new
 * time is planned again: `viewing.planned`); feedback changes unless it was cancelled; `status` ends it (`done`,
 * `cancelled`, `missed`) as `viewingMachine` allows, else 409 `invalid_transition`. A cancelled viewing takes no
 * change but an external id. One event per write: the new status's, else `viewing.updated` when anything changed.
 */
export function changeViewing(scope: WriteScope, reference: string, input: ViewingPatchValue): Promise<Written<ViewingRecord>> {
  return writeLockedWhenStale(
    scope,
    (trx) => lockViewing(trx, scope.company.id, reference),
    async (attempt) => {
      const { db, company } = attempt;
      const held = input.external ? externalHolder(company.id, 'viewing', input.external).holder : sql<string | null>`null::text`;
      const read = (await selectViewings(db, company.id)
        .select([...namedColumns(company.id, input), held.as('holder')] as never)
        .where('viewings.reference', '=', reference)
        .executeTakeFirst()) as (ViewingRecord & NamedRead & { holder: string | null }) | undefined;
      if (!read) throw notFound(`The viewing ${reference}`);
      checkIfMatch(attempt.ifMatch, read.version);
      const { named_home_id: _h, shown_by_known: _k, holder, ...viewing } = read;
      const { status } = viewing;
      const set: Updateable<ViewingsTable> = {};
      const moving = input.time !== undefined || input.home !== undefined || input.shown_by !== undefined;
      // A new time, home or who shows it plans the viewing (again, from missed): only a planned or missed one.
      if (moving && status !== 'planned') checkMove(viewingMachine, reference, status, 'planned', 'time');
      if (input.feedback !== undefined) checkTakes(viewingMachine, reference, status, 'feedback', feedbackTaken, 'feedback');
      if (input.time !== undefined && input.time !== new Date(viewing.starts_at).toISOString()) set.starts_at = input.time;
      let homeSlug = viewing.home_slug;
      if (input.home !== undefined) {
        const listingId = namedHome(read, input.home);
        if (listingId !== viewing.listing_id) {
          set.listing_id = listingId;
          homeSlug = input.home;
        }
      }
      if (input.shown_by !== undefined && input.shown_by !== viewing.shown_by) {
        if (input.shown_by !== null && !read.shown_by_known) throw unknownMember(input.shown_by, shownByRule);
        set.shown_by = input.shown_by;
      }
      if (input.feedback !== undefined && input.feedback !== viewing.feedback) set.feedback = input.feedback;
      let next: ViewingStatus = status;
      if (input.status !== undefined && input.status !== status) {
        checkMove(viewingMachine, reference, status, input.status);
        next = input.status;
      } else if (status === 'missed' && set.starts_at !== undefined) {
        next = 'planned';
      }
      if (next !== status) {
        set.status = next;
        if (next === 'done') set.done_at = attempt.now;
        if (next === 'cancelled') set.cancelled_at = attempt.now;
        set.missed_at = next === 'missed' ? attempt.now : next === 'planned' ? null : viewing.missed_at;
      }
      const link = linkFor('viewing', input.external, holder, viewing.id);
      if (Object.keys(set).length === 0 && link.kind === 'none') return viewingUnchanged(attempt, viewing);
      const update = db
        .updateTable('viewings')
        .set({ ...set, updated_at: stamp })
        .where('id', '=', viewing.id)
        .where(sql<boolean>`version = ${viewing.version}::bigint`)
        .returningAll();
      const type: EventType = next !== status ? `viewing.${next}` : 'viewing.updated';
      const { rows } = await writeStatement(
        [
          sql`changed as (${update})`,
          linkCte('linked', company.id, 'viewing', link, 'changed'),
          Object.keys(set).length > 0 && eventCtes('changed', newEventId(), viewingEvent(attempt, type, reference), 'changed'),
          readAuditCte('answer_read', attempt.answerRead, [reference]),
        ],
        shownRow('changed'),
      ).execute(db);
      const row = rows[0] as ViewingRow | undefined;
      if (!row) return stale;
      const external = linksAfter(viewing.external, link, null);
      return { row: { ...viewing, ...row, home_slug: homeSlug, external }, version: row.version };
    },
  );
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

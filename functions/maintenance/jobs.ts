import { type AliasedRawBuilder, type RawBuilder, sql, type Updateable } from 'kysely';
import { readAuditCte } from '../../lib/audit';
import { lockHomeCalendar } from '../../lib/calendar';
import type { Trx } from '../../lib/db/index';
import { runNamed } from '../../lib/db/prepared';
import { ApiError, notFound } from '../../lib/errors';
import { eventCtes, type EventType, newEventId } from '../../lib/events';
import { type External, externalHolder, type LinkWrite, linkCte, linkFor, linksAfter } from '../../lib/external-ids';
import { writeLockedWhenStale } from '../../lib/locked-write';
import { amountIn } from '../../lib/money';
import { type MemberRule, memberKnown, unknownMember, unknownReference } from '../../lib/named-records';
import { checkIfMatch } from '../../lib/preconditions';
import { newReference } from '../../lib/references';
import type { Written } from '../../lib/resources';
import { type Stale, stale, type WriteScope, writeStatement } from '../../lib/write';
import type { JobRow, JobsTable } from '../../schema/maintenance/db';
import type { JobInputValue, JobPatchValue } from '../../schema/maintenance/jobs';
import { type JobRecord, selectJobs } from './jobs.present';
import { stamp } from '../../lib/clock';

/**
 * Jobs' writes in two round trips (lib/write.ts): one read of the job with everything the decision needs (the
 * contractor and member named, the holder of the client's id, the home's calendar), then one statement: the change
 * guarded by the version read, its calendar block, the link of the client's id, its event and the audit of the answer
 * (a job carries what a renter reported: every answer is audited). A new job is one statement, its read in it (addJob).
 * Under a burst a stale write runs again with the job's row locked (lib/locked-write.ts). The answer is composed from
 * the changed row and the read: no other query.
 */

/** Who a job may be given to: any member of the company. */
const memberRule: MemberRule = { path: 'member' };

/** Who is named to do a job, as the read found them. */
type WhoRead = { contractor_status: 'active' | 'stopped' | null; contractor_name: string | null; member_known: boolean };

/**
 * The SQL columns of a read that check who is named: the contractor's status and name, whether the member is one. A
 * contractor not named is a constant of the text, not a parameter: PostgreSQL folded its lookup away in each run's own
 * plan and so planned a job's schedule read anew on every run (2,279 plans in 2,269 runs, 1 ms each; as a deal
 * create's read, functions/pipelines/deals.ts namedColumns).
 */
function whoColumns(companyId: string, who: { contractor?: string | null; member?: string | null }) {
  const known = typeof who.member === 'string' ? memberKnown(companyId, who.member, memberRule) : sql<boolean>`true`;
  if (typeof who.contractor !== 'string') {
    return [sql<null>`null::text`.as('contractor_status'), sql<null>`null::text`.as('contractor_name'), known.as('member_known')];
  }
  const of = sql`from contractors where company_id = ${companyId}::uuid and id = ${who.contractor}::uuid`;
  return [
    sql<string | null>`(select status ${of})`.as('contractor_status'),
    sql<string | null>`(select name ${of})`.as('contractor_name'),
    known.as('member_known'),
  ];
}

/**
 * Who does a job, checked on what the read found: an unknown contractor or member is 400 `unknown_reference`; a
 * stopped contractor `409 contractor_stopped` (no new work is given to them).
 */
export function checkWho(read: WhoRead, who: { contractor?: string | null; member?: string | null }): void {
  if (typeof who.contractor === 'string') {
    if (read.contractor_status === null) {
      throw unknownReference('contractor', `${who.contractor} is not a contractor of this company.`);
    }
    if (read.contractor_status === 'stopped') {
      throw new ApiError('contractor_stopped', `${read.contractor_name} is stopped: no new work is given to them.`);
    }
  }
  if (typeof who.member === 'string' && !read.member_known) throw unknownMember(who.member, memberRule);
}

/**
 * The write statement's guard that the contractor named is still active, its row share-locked until the write commits
 * (a stop waits for the work given meanwhile; a stop committed first makes the write stale, and its next read refuses).
 */
export function contractorStillActive(companyId: string, contractor: string | null | undefined): RawBuilder<boolean> | undefined {
  if (typeof contractor !== 'string') return undefined;
  return sql<boolean>`(select status = 'active' from contractors
    where company_id = ${companyId}::uuid and id = ${contractor}::uuid for share) is true`;
}

/** A job read for a write: as shown, with who is named and the holder of the client's id. */
export type JobRead = JobRecord & WhoRead & { holder: string | null };

/** The job of this company with this reference, read for a write with `more` columns; 404 when there is none. */
export async function readJob<More extends object = object>(
  scope: WriteScope,
  reference: string,
  who: { contractor?: string | null; member?: string | null },
  external: External | undefined,
  more: AliasedRawBuilder<unknown, string>[] = [],
): Promise<JobRead & More> {
  const { db, company } = scope;
  const held = external ? externalHolder(company.id, 'job', external).holder : sql<string | null>`null::text`;
  // Named (planned once per connection): its joins took PostgreSQL longer to plan than to run (bench/plan-times.ts).
  const query = selectJobs(db, company.id)
    .select([...whoColumns(company.id, who), held.as('holder'), ...more] as never)
    .where('jobs.reference', '=', reference);
  const job = (await runNamed(db, query.compile())).rows[0] as (JobRead & More) | undefined;
  if (!job) throw notFound(`The job ${reference}`);
  checkIfMatch(scope.ifMatch, job.version);
  return job;
}

/**
 * Locks a job for a write run again under a burst (lib/locked-write.ts): its home's calendar first (the terms row of a
 * holiday home, lib/calendar.ts, as a booking request and every job write that touches the calendar lock it first),
 * then the job's bare row. The same order everywhere, so writes of one job and bookings of its home never wait on
 * each other in a circle.
 */
export async function lockJob(trx: Trx, companyId: string, reference: string): Promise<void> {
  await lockHomeCalendar(
    trx,
    sql<string>`(select listing_id from jobs where company_id = ${companyId}::uuid and reference = ${reference})`,
  );
  await sql`select from jobs where company_id = ${companyId}::uuid and reference = ${reference} for update`.execute(trx);
}

/** What a change of a job writes beside its row. */
export type JobChange = {
  /** More conditions of the update (the contractor still active, the calendar as read). */
  guards?: Array<RawBuilder<boolean> | undefined>;
  /** CTEs over `changed` (a released or new calendar block). */
  ctes?: Array<RawBuilder<unknown> | undefined | false>;
  /** The event the change records (`job.scheduled`…), if any. */
  event?: EventType;
  link?: LinkWrite;
  /** Whether the job's calendar block exists after the write (default: as read). */
  blocked?: boolean;
};

/** The row of a write statement's `changed` (or `added`) with its dates and estimate as text, as selectJobs gives them. */
const changedRow = (cte: string) =>
  sql.raw(`select *, scheduled_on::text as scheduled_on, done_on::text as done_on, estimate::text as estimate from ${cte}`);

/**
 * A job's change in one statement: `set` guarded by the version read (and `change.guards`), the CTEs over it, its event,
 * the link of the client's id and the audit of the answer. `stale` when the job changed since the read.
 */
export async function writeJobChange(
  scope: WriteScope,
  job: JobRead,
  set: Updateable<JobsTable>,
  change: JobChange = {},
): Promise<Written<JobRecord> | Stale> {
  const { db, company } = scope;
  const link = change.link ?? { kind: 'none' };
  let update = db
    .updateTable('jobs')
    .set({ ...set, updated_at: stamp })
    .where('id', '=', job.id)
    .where('version', '=', job.version);
  for (const guard of change.guards ?? []) if (guard) update = update.where(guard);
  const event =
    change.event === undefined
      ? undefined
      : { companyId: company.id, type: change.event, causedBy: scope.causedBy, data: { reference: job.reference } };
  const { rows } = await writeStatement(
    [
      sql`changed as (${update.returningAll()})`,
      ...(change.ctes ?? []),
      linkCte('linked', company.id, 'job', link, 'changed'),
      event && eventCtes('job', newEventId(), event, 'changed'),
      readAuditCte('answer_read', scope.answerRead, [job.reference]),
    ],
    changedRow('changed'),
  ).execute(db);
  const row = rows[0] as JobRow | undefined;
  if (!row) return stale;
  const { contractor_status: _s, contractor_name: _n, member_known: _m, holder: _h, ...shown } = job;
  const external = linksAfter(job.external, link, null);
  return { row: { ...shown, ...row, blocked: change.blocked ?? job.blocked, external }, version: row.version };
}

/** A job answered as read, nothing written but the audit of the answer. */
export async function jobUnchanged(scope: WriteScope, job: JobRead, created = false): Promise<Written<JobRecord>> {
  const audit = readAuditCte('answer_read', scope.answerRead, [job.reference]);
  if (audit) await writeStatement([audit], sql`select 1`).execute(scope.db);
  const { contractor_status: _s, contractor_name: _n, member_known: _m, holder: _h, ...shown } = job;
  return { row: shown, created, version: job.version };
}

/** A create's read: the job holding the ticket (if any), the home, its active lease and approval limit, who is named. */
type CreateRead = WhoRead & {
  home_id: string | null;
  new_home_type: string | null;
  new_lease_id: string | null;
  new_lease_reference: string | null;
  home_limit: string | null;
  existing: string | null;
};

/**
 * Adds a job on a home, on its active lease when it has one, in one statement: the create's read (the job holding the
 * ticket, the home, its active lease and approval limit, who is named) and the insert gated on what that read found
 * (no holder, the home found, the contractor active and share-locked, the member one of the company), with the link of
 * the ticket and the audit of the answer; the refusals are then made from the read, as before, and nothing was written
 * for them. Sent again with the same external id (the helpdesk ticket): the first job (read on its own, a trip more on
 * a retry only; bench/plan-times.ts: the create's read plans in 0.61 ms, 0.95–1.16 ms with it joined), `created:
 * false`, nothing written but the audit of the answer. Of concurrent identical creates one links the ticket; the
 * others fail on external_ids' key and their next read finds that job.
 */
export async function addJob(scope: WriteScope, input: JobInputValue): Promise<Written<JobRecord> | Stale> {
  const { db, company } = scope;
  const existing = input.external ? externalHolder(company.id, 'job', input.external).holder : sql`null::text`;
  // An estimate the currency cannot hold is refused after the read's refusals (a retry is answered first), as before.
  let estimate: string | null = null;
  let estimateRefused: unknown;
  try {
    estimate = input.estimate === undefined ? null : amountIn(input.estimate, company.currency, 'estimate');
  } catch (error) {
    estimateRefused = error;
  }
  const reference = newReference('J');
  const contractor = typeof input.contractor === 'string';
  const member = typeof input.member === 'string';
  const added = sql`insert into jobs (company_id, reference, listing_id, lease_id, category, priority, problem, payer, estimate,
      contractor_id, member_id)
    select ${company.id}::uuid, ${reference}, k.home_id, k.new_lease_id, ${input.category}, ${input.priority},
      ${input.problem}, ${input.payer}, ${estimate}::numeric, ${input.contractor ?? null}::uuid, ${input.member ?? null}::text
    from k
    where ${estimateRefused === undefined} and k.existing is null and k.home_id is not null
      ${contractor ? sql`and k.contractor_status = 'active'` : sql``} ${member ? sql`and k.member_known` : sql``}
      and ${contractorStillActive(company.id, input.contractor) ?? sql<boolean>`true`}
    returning *`;
  const link = linkFor('job', input.external, null, undefined);
  const { rows } = await writeStatement(
    [
      sql`k as (
    select k.existing, home.id as home_id, home.listing_type as new_home_type,
      lease.id as new_lease_id, lease.reference as new_lease_reference, settings.approval_limit::text as home_limit,
      w.contractor_status, w.contractor_name, w.member_known
    from (select ${existing} as existing) k
    left join listings home on home.company_id = ${company.id}::uuid and home.slug_en = ${input.home}
    left join leases lease on lease.listing_id = home.id and lease.status = 'active'
    left join maintenance_homes settings on settings.listing_id = home.id
    cross join lateral (select ${sql.join(whoColumns(company.id, input))}) w
  )`,
      sql`added as (${added})`,
      linkCte('linked', company.id, 'job', link, 'added'),
      readAuditCte('answer_read', scope.answerRead, [reference], 'added'),
    ],
    sql`select k.*, a.*, a.scheduled_on::text as scheduled_on, a.done_on::text as done_on, a.estimate::text as estimate
      from k left join added a on true`,
  ).execute(db);
  const found = rows[0] as CreateRead & Partial<JobRow>;
  if (found.existing !== null) {
    // Sent before (a retry): the job is read on its own, so the create's read plans without its joins.
    const query = selectJobs(db, company.id)
      .select([sql<null>`null::text`.as('holder')])
      .where('jobs.id', '=', found.existing);
    const sent = await runNamed(db, query.compile());
    if (sent.rows[0]) return jobUnchanged(scope, sent.rows[0] as unknown as JobRead);
  }
  if (found.home_id === null) throw unknownReference('home', `${input.home} is not a listing of this company.`);
  checkWho(found, input);
  if (estimateRefused !== undefined) throw estimateRefused;
  // Not written, though every check passed: the contractor was stopped meanwhile (or the ticket's holder appeared).
  if (!found.id) return stale;
  const { existing: _e, home_id: _h, new_home_type, new_lease_id: _l, new_lease_reference, home_limit, ...rest } = found;
  const { contractor_status: _s, contractor_name: _n, member_known: _m, ...row } = rest;
  const record: JobRecord = {
    ...(row as JobRow),
    home_slug: input.home,
    home_type: new_home_type as string,
    lease_reference: new_lease_reference,
    blocked: false,
    approval_limit: home_limit ?? company.settings.maintenance_approval_limit ?? null,
    currency: company.currency,
    external: linksAfter([], link, null),
  };
  return { row: record, created: true, version: record.version };
}

/**
 * PATCH of a job, at any status: what is wrong, category, priority, payer, estimate, who does it (a stopped contractor
 * is refused: new work), what was done and your id. Naming a contractor drops the member and the other way round.
 */
export function changeJob(scope: WriteScope, reference: string, input: JobPatchValue): Promise<Written<JobRecord>> {
  return writeLockedWhenStale(
    scope,
    (trx) => lockJob(trx, scope.company.id, reference),
    async (attempt) => {
      const job = await readJob(attempt, reference, input, input.external);
      const { external, estimate, contractor, member, ...fields } = input;
      const set: Updateable<JobsTable> = {};
      const differs = (column: keyof JobRead, value: unknown) => String(job[column]) !== String(value);
      for (const [column, value] of Object.entries(fields)) {
        if (value !== undefined && differs(column as keyof JobRead, value)) Object.assign(set, { [column]: value });
      }
      if (estimate !== undefined) {
        const amount = estimate === null ? null : amountIn(estimate, attempt.company.currency, 'estimate');
        if (amount === null ? job.estimate !== null : job.estimate === null || differs('estimate', amount)) set.estimate = amount;
      }
      let newContractor: string | null | undefined;
      if (contractor !== undefined && contractor !== job.contractor_id) {
        checkWho(job, { contractor });
        set.contractor_id = contractor;
        newContractor = contractor;
        if (contractor !== null && job.member_id !== null) set.member_id = null;
      }
      if (member !== undefined && member !== job.member_id) {
        checkWho(job, { member });
        set.member_id = member;
        if (member !== null && job.contractor_id !== null) set.contractor_id = null;
      }
      const link = linkFor('job', external, job.holder, job.id);
      if (Object.keys(set).length === 0 && link.kind === 'none') return jobUnchanged(attempt, job);
      return writeJobChange(attempt, job, set, { guards: [contractorStillActive(attempt.company.id, newContractor)], link });
    },
  );
}

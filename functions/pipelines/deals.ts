import Big from 'big.js';
import { type AliasedRawBuilder, type RawBuilder, sql, type Updateable } from 'kysely';
import { readAuditCte } from '../../lib/audit';
import type { Trx } from '../../lib/db/index';
import { notFound } from '../../lib/errors';
import { type External, externalHolder, type LinkWrite, linkCte, linkFor, linksAfter } from '../../lib/external-ids';
import { writeLockedWhenStale } from '../../lib/locked-write';
import { amountIn } from '../../lib/money';
import {
  departmentKnown,
  fieldProblem,
  type MemberRule,
  memberKnown,
  unknownDepartment,
  unknownMember,
  unknownReference,
} from '../../lib/named-records';
import { checkIfMatch } from '../../lib/preconditions';
import type { Written } from '../../lib/resources';
import { type Stale, stale, type WriteScope, writeStatement } from '../../lib/write';
import type { DealRow, DealsTable } from '../../schema/pipelines/db';
import type { DealPatchValue } from '../../schema/pipelines/deals';
import { type DealRecord, selectDeals } from './deals.present';
import { runNamed } from '../../lib/db/prepared';
import { stamp } from '../../lib/clock';

/**
 * A deal's changes in two round trips (lib/write.ts): one read of everything the decision needs (the deal with its
 * version, the home, owner, handler and department the body names, the holder of the client's id), then one
 * statement: the change guarded by the version read, the link of the client's id and the audit of the answer (a deal
 * names its person: every answer is audited). Under a burst a stale write runs again with the deal's row locked
 * (lib/locked-write.ts). A new deal is one statement, its read in it (functions/pipelines/deal-create.ts).
 */

/** Who may handle a deal: any member of the company. */
const handlerRule: MemberRule = { path: 'handler' };

/** The records the body's optional fields name, as one read found them. */
export type NamedRead = {
  named_home_id: string | null;
  named_owner_id: string | null;
  named_owner_erased: boolean | null;
  handler_known: boolean;
  department_known: boolean;
};

/**
 * The columns of a read that resolve the records the body's optional fields name (home, owner, handler, department).
 * A field the body leaves out or sets to null is a constant of the text, not a parameter: PostgreSQL folded such
 * lookups away in each run's own plan, so it planned a deal create's read anew on every run (1,508 plans in 1,712
 * runs, 0.56 ms each) instead of keeping the generic plan; each shape of body is now its own text, planned once.
 */
export function namedColumns(companyId: string, input: DealPatchValue): AliasedRawBuilder<unknown, string>[] {
  const company = sql`company_id = ${companyId}::uuid`;
  const owner = sql`from contacts where ${company} and reference = ${input.owner ?? null}::text`;
  return [
    (input.home ? sql`(select id from listings where ${company} and slug_en = ${input.home}::text)` : sql`null::uuid`).as(
      'named_home_id',
    ),
    (input.owner ? sql`(select id ${owner})` : sql`null::uuid`).as('named_owner_id'),
    (input.owner ? sql`(select erased ${owner})` : sql`null::boolean`).as('named_owner_erased'),
    (input.handler ? memberKnown(companyId, input.handler, handlerRule) : sql`true`).as('handler_known'),
    (input.department ? departmentKnown(companyId, input.department) : sql`true`).as('department_known'),
  ];
}

/** The columns the body's optional fields set (both on POST and PATCH), checked against what the read found. */
export function fieldValues(read: NamedRead, currency: string, input: DealPatchValue): Updateable<DealsTable> {
  const set: Updateable<DealsTable> = {};
  if (input.title !== undefined) set.title = input.title;
  if (input.home !== undefined) {
    if (input.home !== null && read.named_home_id === null) {
      throw unknownReference('home', `${input.home} is not a listing of this company.`);
    }
    set.listing_id = read.named_home_id;
  }
  if (input.owner !== undefined) {
    if (input.owner !== null && read.named_owner_id === null) {
      throw unknownReference('owner', `${input.owner} is not a contact of this company.`);
    }
    if (read.named_owner_erased) throw fieldProblem('owner', 'contact_erased', `The contact ${input.owner} is erased.`);
    set.owner_id = read.named_owner_id;
  }
  if (input.handler !== undefined) {
    if (input.handler !== null && !read.handler_known) throw unknownMember(input.handler, handlerRule);
    set.handler_id = input.handler;
  }
  if (input.department !== undefined) {
    if (input.department !== null && !read.department_known) throw unknownDepartment(input.department);
    set.department_key = input.department;
  }
  if (input.value !== undefined) set.value = input.value && amountIn(input.value, currency, 'value');
  if (input.commission !== undefined) set.commission = input.commission && amountIn(input.commission, currency, 'commission');
  if (input.probability !== undefined) set.probability = input.probability;
  if (input.expected_close !== undefined) set.expected_close = input.expected_close;
  return set;
}

export function checkParties(contactId: string | undefined, ownerId: string | null | undefined) {
  if (ownerId && ownerId === contactId)
    throw fieldProblem('owner', 'same_party', 'The owner is not the person the deal is with.');
}

/** The row of a write statement's CTE with its dates and amounts as text, as selectDeals gives them. */
const shownRow = (cte: string, more = '') =>
  sql.raw(`select *, expected_close::text as expected_close, value::text as value, commission::text as commission,
    version::text as version${more} from ${cte}`);

/** A deal answered as read, nothing written but the audit of the answer. */
export async function dealUnchanged(scope: WriteScope, deal: DealRecord, created = false): Promise<Written<DealRecord>> {
  const audit = readAuditCte('answer_read', scope.answerRead, [deal.reference]);
  if (audit) await writeStatement([audit], sql`select 1`).execute(scope.db);
  return { row: deal, created, version: deal.version };
}

/** The deal of this company with this reference, read for a write with `more` columns; 404 when there is none. */
export async function readDeal<More extends object>(
  scope: WriteScope,
  reference: string,
  more: AliasedRawBuilder<unknown, string>[],
  external?: External,
): Promise<DealRecord & More & { holder: string | null }> {
  const held = external ? externalHolder(scope.company.id, 'deal', external).holder : sql<string | null>`null::text`;
  const query = selectDeals(scope.db, scope.company.id)
    .select([...more, held.as('holder')] as never)
    .where('deals.reference', '=', reference);
  // Named, as the create's read: its joins took longer to plan than to run.
  const deal = (await runNamed(scope.db, query.compile())).rows[0] as (DealRecord & More & { holder: string | null }) | undefined;
  if (!deal) throw notFound(`The deal ${reference}`);
  checkIfMatch(scope.ifMatch, deal.version);
  return deal;
}

/** Locks a deal's bare row for a write run again under a burst (lib/locked-write.ts). */
export async function lockDeal(trx: Trx, companyId: string, reference: string): Promise<void> {
  await sql`select from deals where company_id = ${companyId}::uuid and reference = ${reference} for update`.execute(trx);
}

/**
 * A deal's change in one statement: `set` guarded by the version read (and `guards`), the link of the client's id, the
 * CTEs over `changed` (events) and the audit of the answer; `shown` what the answer shows beside the changed row.
 */
export async function writeDealChange(
  scope: WriteScope,
  deal: DealRecord,
  set: Updateable<DealsTable>,
  more: {
    guards?: RawBuilder<boolean>[];
    ctes?: Array<RawBuilder<unknown> | false>;
    link?: LinkWrite;
    shown?: Partial<DealRecord>;
  },
): Promise<Written<DealRecord> | Stale> {
  const { db, company } = scope;
  const link = more.link ?? { kind: 'none' };
  let update = db
    .updateTable('deals')
    .set({ ...set, updated_at: stamp })
    .where('id', '=', deal.id)
    .where(sql<boolean>`version = ${deal.version}::bigint`);
  for (const guard of more.guards ?? []) update = update.where(guard);
  const { rows } = await writeStatement(
    [
      sql`changed as (${update.returningAll()})`,
      linkCte('linked', company.id, 'deal', link, 'changed'),
      ...(more.ctes ?? []),
      readAuditCte('answer_read', scope.answerRead, [deal.reference]),
    ],
    shownRow('changed'),
  ).execute(db);
  const row = rows[0] as DealRow | undefined;
  if (!row) return stale;
  const external = linksAfter(deal.external, link, null);
  const record = { ...deal, ...(row as unknown as DealRecord), ...more.shown, external };
  return { row: record, version: row.version };
}

/**
 * PATCH of a deal: title, home, owner, handler, department, value and commission, probability (null: the stage's
 * again), expected close, and an external id. Announces nothing (no deal update event in the spec): `updated_at`
 * moves, so `updated_since` finds it.
 */
export function changeDeal(scope: WriteScope, reference: string, input: DealPatchValue): Promise<Written<DealRecord>> {
  return writeLockedWhenStale(
    scope,
    (trx) => lockDeal(trx, scope.company.id, reference),
    async (attempt) => {
      const read = await readDeal<NamedRead>(attempt, reference, namedColumns(attempt.company.id, input), input.external);
      const set = fieldValues(read, attempt.company.currency, input);
      checkParties(read.contact_id, set.owner_id === undefined ? read.owner_id : set.owner_id);
      const link = linkFor('deal', input.external, read.holder, read.id);
      const same = (column: string, value: unknown) => {
        const current = read[column as keyof typeof read];
        if (value === null || current === null) return value === current;
        return column === 'value' || column === 'commission'
          ? new Big(String(current)).eq(String(value))
          : String(current) === String(value);
      };
      const changes = Object.fromEntries(Object.entries(set).filter(([column, value]) => !same(column, value)));
      const { named_home_id, named_owner_id, named_owner_erased, handler_known, department_known, holder, ...deal } = read;
      if (Object.keys(changes).length === 0 && link.kind === 'none') return dealUnchanged(attempt, deal);
      const shown: Partial<DealRecord> = {};
      if (input.home !== undefined) shown.home_slug = input.home;
      if (input.owner !== undefined) shown.owner_reference = input.owner;
      return writeDealChange(attempt, deal, changes, { link, shown });
    },
  );
}

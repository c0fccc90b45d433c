import { sql, type Updateable } from 'kysely';
import { readAuditCte } from '../../lib/audit';
import type { Trx } from '../../lib/db/index';
import { notFound } from '../../lib/errors';
import { externalHolder, linkCte, linkFor, linksAfter } from '../../lib/external-ids';
import { writeLockedWhenStale } from '../../lib/locked-write';
import { checkIfMatch } from '../../lib/preconditions';
import type { Written } from '../../lib/resources';
import { type Stale, stale, type WriteScope, writeStatement } from '../../lib/write';
import type { ContractorInputValue, ContractorPatchValue } from '../../schema/maintenance/contractors';
import type { ContractorRow, ContractorsTable } from '../../schema/maintenance/db';
import { type ContractorRecord, selectContractors } from './contractors.present';
import { stamp } from '../../lib/clock';

/**
 * Contractors' writes in two round trips (lib/write.ts): one read (the contractor, the holder of the client's id),
 * then one statement (the change guarded by the version read, the link, the audit of a sole trader's answer: a
 * person's details). No event: the spec names none for contractors.
 */

/** A sole trader's details are a person's: the answer's read is audited. */
const audited = (scope: WriteScope, contractor: { id: string; kind: string }) =>
  readAuditCte('answer_read', scope.answerRead, contractor.kind === 'sole_trader' ? [contractor.id] : []);

async function unchanged(scope: WriteScope, contractor: ContractorRecord, created = false): Promise<Written<ContractorRecord>> {
  const audit = audited(scope, contractor);
  if (audit) await writeStatement([audit], sql`select 1`).execute(scope.db);
  return { row: contractor, created, version: contractor.version };
}

/**
 * Adds a contractor. Sent again with the same external id: the first one, `created: false`, nothing written but the
 * audit of the answer. A concurrent add with the same id fails the statement on external_ids' key; the next read finds it.
 */
export async function addContractor(scope: WriteScope, input: ContractorInputValue): Promise<Written<ContractorRecord> | Stale> {
  const { db, company } = scope;
  if (input.external) {
    const held = externalHolder(company.id, 'contractor', input.external).holder;
    const existing = (await selectContractors(db, company.id)
      .where(sql<boolean>`contractors.id::text = ${held}`)
      .executeTakeFirst()) as ContractorRecord | undefined;
    if (existing) return unchanged(scope, existing);
  }
  const id = crypto.randomUUID();
  const insert = db
    .insertInto('contractors')
    .values({
      id,
      company_id: company.id,
      name: input.name,
      kind: input.kind,
      trades: [...new Set(input.trades)],
      contact_name: input.contact_name ?? null,
      email: input.email ?? null,
      phone: input.phone ?? null,
      notes: input.notes ?? null,
    })
    .returningAll();
  const link = linkFor('contractor', input.external, null, undefined);
  const audit = audited(scope, { id, kind: input.kind });
  const { rows } = await writeStatement(
    [sql`added as (${insert})`, linkCte('linked', company.id, 'contractor', link, 'added'), audit],
    sql`select * from added`,
  ).execute(db);
  const row = rows[0] as ContractorRow | undefined;
  if (!row) throw new Error('the new contractor was not stored');
  return { row: { ...row, external: linksAfter([], link, null) }, created: true, version: row.version };
}

/** Locks a contractor's bare row for a write run again under a burst (lib/locked-write.ts). */
async function lockContractor(trx: Trx, companyId: string, id: string): Promise<void> {
  await sql`select from contractors where company_id = ${companyId}::uuid and id = ${id}::uuid for update`.execute(trx);
}

/**
 * PATCH of a contractor: its details, stopping it (`status: stopped`; its jobs and charges stay) or taking it back.
 * Stopping updates the row, so work being given to it meanwhile (whose statement holds a share lock on it) commits
 * first, and work given afterwards reads it stopped.
 */
export function changeContractor(scope: WriteScope, id: string, input: ContractorPatchValue): Promise<Written<ContractorRecord>> {
  return writeLockedWhenStale(
    scope,
    (trx) => lockContractor(trx, scope.company.id, id),
    async (attempt): Promise<Written<ContractorRecord> | Stale> => {
      const { db, company } = attempt;
      const held = input.external
        ? externalHolder(company.id, 'contractor', input.external).holder
        : sql<string | null>`null::text`;
      const read = (await selectContractors(db, company.id)
        .select(held.as('holder'))
        .where('contractors.id', '=', id)
        .executeTakeFirst()) as (ContractorRecord & { holder: string | null }) | undefined;
      if (!read) throw notFound(`The contractor ${id}`);
      checkIfMatch(attempt.ifMatch, read.version);
      const { holder, ...current } = read;
      const { external, status, trades, ...fields } = input;
      const set: Updateable<ContractorsTable> = {};
      for (const [column, value] of Object.entries(fields)) {
        if (value !== undefined && value !== current[column as keyof ContractorRecord]) Object.assign(set, { [column]: value });
      }
      if (trades !== undefined) {
        const wanted = [...new Set(trades)];
        if (wanted.join('\n') !== current.trades.join('\n')) set.trades = wanted;
      }
      if (status !== undefined && status !== current.status) {
        set.status = status;
        set.stopped_at = status === 'stopped' ? attempt.now : null;
      }
      const link = linkFor('contractor', external, holder, current.id);
      if (Object.keys(set).length === 0 && link.kind === 'none') return unchanged(attempt, current);
      const update = db
        .updateTable('contractors')
        .set({ ...set, updated_at: stamp })
        .where('id', '=', current.id)
        .where(sql<boolean>`version = ${current.version}::bigint`)
        .returningAll();
      const { rows } = await writeStatement(
        [sql`changed as (${update})`, linkCte('linked', company.id, 'contractor', link, 'changed'), audited(attempt, current)],
        sql`select * from changed`,
      ).execute(db);
      const row = rows[0] as ContractorRow | undefined;
      if (!row) return stale;
      return { row: { ...current, ...row, external: linksAfter(current.external, link, null) }, version: row.version };
    },
  );
}

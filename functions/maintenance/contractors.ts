import { sql, type Updateable } from 'kysely';
import type { Executor, Trx } from '../../lib/db/index';
import { notFound } from '../../lib/errors';
import { linkExternal, linkNewRecord, recordIdByExternal } from '../../lib/external-ids';
import type { ContractorInputValue, ContractorPatchValue } from '../../schema/maintenance/contractors';
import type { ContractorsTable } from '../../schema/maintenance/db';
import type { Company } from '../../schema/platform/db';

/** A company's contractors. */
export function selectContractors(executor: Executor, companyId: string) {
  return executor.selectFrom('contractors').selectAll('contractors').where('contractors.company_id', '=', companyId);
}

/**
 * Adds a contractor. Sent again with the same external id: the first one, `created: false`, nothing written. Run it
 * in `transactionRetryingConflict`: a concurrent add with the same id fails on external_ids' key and the retry finds it.
 */
export async function createContractor(
  trx: Trx,
  company: Company,
  input: ContractorInputValue,
): Promise<{ id: string; created: boolean }> {
  if (input.external) {
    const existing = await recordIdByExternal(trx, company.id, 'contractor', input.external);
    if (existing) return { id: existing, created: false };
  }
  const row = await trx
    .insertInto('contractors')
    .values({
      company_id: company.id,
      name: input.name,
      kind: input.kind,
      trades: [...new Set(input.trades)],
      contact_name: input.contact_name ?? null,
      email: input.email ?? null,
      phone: input.phone ?? null,
      notes: input.notes ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (input.external) await linkNewRecord(trx, company.id, 'contractor', row.id, input.external);
  return { id: row.id, created: true };
}

/**
 * PATCH of a contractor: its details, stopping it (`status: stopped`; its jobs and charges stay) or taking it back.
 * Stopping takes the row's lock, so work being scheduled for it meanwhile (which holds a share lock) commits first.
 */
export async function updateContractor(trx: Trx, company: Company, id: string, input: ContractorPatchValue, now: Date) {
  const current = await selectContractors(trx, company.id).where('id', '=', id).forUpdate().executeTakeFirst();
  if (!current) throw notFound(`The contractor ${id}`);
  const { external, status, trades, ...fields } = input;
  const set: Updateable<ContractorsTable> = {};
  for (const [column, value] of Object.entries(fields)) {
    if (value !== undefined) Object.assign(set, { [column]: value });
  }
  if (trades !== undefined) set.trades = [...new Set(trades)];
  if (status !== undefined && status !== current.status) {
    set.status = status;
    set.stopped_at = status === 'stopped' ? now : null;
  }
  const linked = external ? await linkExternal(trx, company.id, 'contractor', id, external) : false;
  if (Object.keys(set).length > 0 || linked) {
    await trx
      .updateTable('contractors')
      .set({ ...set, updated_at: sql`clock_timestamp()` })
      .where('id', '=', id)
      .execute();
  }
  return id;
}

import { sql } from 'kysely';
import type { Executor, Trx } from '../../lib/db/index';
import { linkNewRecord, recordIdByExternal } from '../../lib/external-ids';
import { newReference } from '../../lib/references';
import type { InspectionInputValue } from '../../schema/maintenance/inspections';
import type { Company } from '../../schema/platform/db';
import { checkMember, fieldProblem, resolveListing } from '../../lib/named-records';

/** A company's inspections with the home's slug and the lease's reference. */
export function selectInspections(executor: Executor, companyId: string) {
  return executor
    .selectFrom('inspections')
    .innerJoin('listings as home', 'home.id', 'inspections.listing_id')
    .leftJoin('leases as lease', 'lease.id', 'inspections.lease_id')
    .selectAll('inspections')
    .select([
      sql<string>`inspections.planned_on::text`.as('planned_on'),
      'home.slug_en as home_slug',
      'lease.reference as lease_reference',
    ])
    .where('inspections.company_id', '=', companyId);
}

/** The lease an inspection is on, of this company; its home must be the one named (400 otherwise). */
async function leaseFor(trx: Trx, companyId: string, reference: string) {
  const lease = await trx
    .selectFrom('leases')
    .select(['id', 'listing_id'])
    .where('company_id', '=', companyId)
    .where('reference', '=', reference)
    .executeTakeFirst();
  if (!lease) throw fieldProblem('lease', 'unknown_reference', `${reference} is not a lease of this company.`);
  return lease;
}

/**
 * Plans an inspection. A lease's move-in and move-out exist once each (the unique index inspections_once_per_lease):
 * planned again, the first one comes back (`created: false`, nothing written), also for concurrent plans (run it in
 * `transactionRetryingConflict`: the loser's retry finds the winner). Same external id: the first inspection.
 */
export async function planInspection(
  trx: Trx,
  company: Company,
  input: InspectionInputValue,
): Promise<{ id: string; created: boolean }> {
  if (input.external) {
    const existing = await recordIdByExternal(trx, company.id, 'inspection', input.external);
    if (existing) return { id: existing, created: false };
  }
  const lease = input.lease === undefined ? undefined : await leaseFor(trx, company.id, input.lease);
  const home = input.home === undefined ? undefined : await resolveListing(trx, company.id, input.home);
  if (lease && home && lease.listing_id !== home.id) {
    throw fieldProblem('lease', 'lease_not_of_home', `The lease ${input.lease} is not on ${input.home}.`);
  }
  if (lease && input.kind !== 'routine') {
    const first = await trx
      .selectFrom('inspections')
      .select('id')
      .where('lease_id', '=', lease.id)
      .where('kind', '=', input.kind)
      .executeTakeFirst();
    if (first) return { id: first.id, created: false };
  }
  if (input.inspector !== undefined) await checkMember(trx, company.id, input.inspector, { path: 'inspector' });
  const inspection = await trx
    .insertInto('inspections')
    .values({
      company_id: company.id,
      reference: newReference('I'),
      listing_id: (lease?.listing_id ?? home?.id) as string,
      lease_id: lease?.id ?? null,
      kind: input.kind,
      planned_on: input.planned_on,
      inspector_id: input.inspector ?? null,
      notes: input.notes ?? null,
      areas: JSON.stringify(input.areas.map((a) => ({ name: a.name, condition: a.condition ?? null, notes: a.notes ?? null }))),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (input.external) await linkNewRecord(trx, company.id, 'inspection', inspection.id, input.external);
  return { id: inspection.id, created: true };
}

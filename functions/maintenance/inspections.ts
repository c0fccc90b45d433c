import { sql } from 'kysely';
import { readAuditCte } from '../../lib/audit';
import { externalHolder, linkCte, linkFor, linksAfter } from '../../lib/external-ids';
import { fieldProblem, type MemberRule, memberKnown, unknownMember, unknownReference } from '../../lib/named-records';
import { newReference } from '../../lib/references';
import type { Written } from '../../lib/resources';
import { type Stale, stale, type WriteScope, writeStatement } from '../../lib/write';
import type { InspectionRow } from '../../schema/maintenance/db';
import type { InspectionInputValue } from '../../schema/maintenance/inspections';
import { type InspectionRecord, selectInspections } from './inspections.present';

/** Who may inspect: any member of the company. */
const inspectorRule: MemberRule = { path: 'inspector' };

/** What a plan reads, in one statement: the inspection sent before (by external id, or the lease's move-in or move-out), the lease, the home, the inspector. */
type PlanRead = {
  existing: string | null;
  lease_id_read: string | null;
  lease_listing_id: string | null;
  lease_home_slug: string | null;
  home_id_read: string | null;
  inspector_known: boolean;
  id: string | null;
};

/**
 * Plans an inspection, in two round trips (lib/write.ts). A lease's move-in and move-out exist once each (the unique
 * index inspections_once_per_lease): planned again, the first one comes back (`created: false`, nothing written but
 * the audit of the answer), also for concurrent plans (the loser's statement fails on the index, and its next read
 * finds the winner). Same external id: the first inspection. An inspection on a lease is audited (it is about its
 * renter's home). A lease or home not named is not in the read's text (`false`), never a null value: each run's own plan
 * folded such a lookup away, and PostgreSQL kept planning the read anew (functions/pipelines/deals.ts namedColumns).
 */
export async function planInspection(scope: WriteScope, input: InspectionInputValue): Promise<Written<InspectionRecord> | Stale> {
  const { db, company } = scope;
  const c = sql`${company.id}::uuid`;
  const held = input.external ? externalHolder(company.id, 'inspection', input.external).holder : sql`null::text`;
  const once =
    input.kind === 'routine'
      ? sql`null::uuid`
      : sql`(select i.id from inspections i where i.lease_id = lease.id and i.kind = ${input.kind})`;
  const { rows } = await sql<PlanRead & Record<string, unknown>>`
    select k.existing, lease.id as lease_id_read, lease.listing_id as lease_listing_id, lease_home.slug_en as lease_home_slug,
      home.id as home_id_read,
      ${input.inspector === undefined ? sql`true` : memberKnown(company.id, input.inspector, inspectorRule)} as inspector_known,
      i.*
    from (select ${held} as held) h
    left join leases lease on ${input.lease === undefined ? sql`false` : sql`lease.company_id = ${c} and lease.reference = ${input.lease}::text`}
    left join listings lease_home on lease_home.id = lease.listing_id
    left join listings home on ${input.home === undefined ? sql`false` : sql`home.company_id = ${c} and home.slug_en = ${input.home}::text`}
    cross join lateral (select coalesce(h.held::uuid, ${once}) as existing) k
    left join lateral ${selectInspections(db, company.id).where(sql<boolean>`inspections.id = k.existing`)} as i on true
  `.execute(db);
  const read = rows[0] as PlanRead & Record<string, unknown>;
  if (read.existing !== null && read.id !== null) {
    const existing = read as unknown as InspectionRecord;
    const audit = readAuditCte('answer_read', scope.answerRead, existing.lease_reference === null ? [] : [existing.reference]);
    if (audit) await writeStatement([audit], sql`select 1`).execute(db);
    return { row: existing, created: false, version: existing.version };
  }
  if (input.lease !== undefined && read.lease_id_read === null) {
    throw unknownReference('lease', `${input.lease} is not a lease of this company.`);
  }
  if (input.home !== undefined && read.home_id_read === null) {
    throw unknownReference('home', `${input.home} is not a listing of this company.`);
  }
  if (read.lease_id_read !== null && read.home_id_read !== null && read.lease_listing_id !== read.home_id_read) {
    throw fieldProblem('lease', 'lease_not_of_home', `The lease ${input.lease} is not on ${input.home}.`);
  }
  if (input.inspector !== undefined && !read.inspector_known) throw unknownMember(input.inspector, inspectorRule);
  const reference = newReference('I');
  const insert = db
    .insertInto('inspections')
    .values({
      company_id: company.id,
      reference,
      listing_id: (read.lease_listing_id ?? read.home_id_read) as string,
      lease_id: read.lease_id_read,
      kind: input.kind,
      planned_on: input.planned_on,
      inspector_id: input.inspector ?? null,
      notes: input.notes ?? null,
      areas: JSON.stringify(input.areas.map((a) => ({ name: a.name, condition: a.condition ?? null, notes: a.notes ?? null }))),
    })
    .returningAll();
  const link = linkFor('inspection', input.external, null, undefined);
  const { rows: written } = await writeStatement(
    [
      sql`added as (${insert})`,
      linkCte('linked', company.id, 'inspection', link, 'added'),
      readAuditCte('answer_read', scope.answerRead, read.lease_id_read === null ? [] : [reference]),
    ],
    sql`select *, planned_on::text as planned_on from added`,
  ).execute(db);
  const row = written[0] as InspectionRow | undefined;
  if (!row) return stale;
  const record: InspectionRecord = {
    ...row,
    home_slug: (input.home ?? read.lease_home_slug) as string,
    lease_reference: input.lease ?? null,
    external: linksAfter([], link, null),
  };
  return { row: record, created: true, version: row.version };
}

import { sql } from 'kysely';
import { type Db, isForeignKeyViolation } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { unknownDepartment } from '../../lib/named-records';
import { newId } from '../../lib/references';
import { type Stale, stale, writeOnce } from '../../lib/write';
import type { LocalisedText } from '../../schema/common/columns';
import type { MemberRow } from '../../schema/crm/db';
import type { MemberInputValue, MemberPatchValue } from '../../schema/crm/members';
import { type DepartmentRow, selectMembers } from './members.present';

/**
 * Members and departments, written by the operator (functions/crm/admin.ts). Each write is one statement: it checks
 * what it names (the company, the department, share-locked so it cannot go before the write commits) and answers the
 * row with what it found, so a write is the admin token's check and this statement.
 */

/** The department `key` names, share-locked (none when `key` is null). */
const departmentCte = (companyId: string, key: string | null) =>
  sql`department as (select key from departments where company_id = ${companyId}::uuid and key = ${key}::text for key share)`;
const departmentUsable = (key: string | null) => sql`(${key}::text is null or exists (select from department))`;

type Found<R> = { company_found: boolean; department_found: boolean } & { [K in keyof R]: R[K] | null };

/** Every member of the company, active or not, by name (404 when there is no such company). */
export async function membersByName(db: Db, companyId: string): Promise<MemberRow[]> {
  const rows = await sql<Found<MemberRow>>`
    select exists (select from companies where id = ${companyId}::uuid) as company_found, true as department_found, m.*
    from (select 1) as one
    left join lateral ${selectMembers(db, companyId)} as m on true
    order by m.name, m.id
  `.execute(db);
  if (!rows.rows[0]?.company_found) throw notFound(`The company ${companyId}`);
  return rows.rows.filter((row) => row.id !== null) as MemberRow[];
}

/** Adds a member to the company (404 without the company; 400 for a department it does not have). */
export async function addMember(db: Db, companyId: string, input: MemberInputValue): Promise<MemberRow> {
  const { rows } = await sql<Found<MemberRow>>`
    with company as (select id from companies where id = ${companyId}::uuid),
      ${departmentCte(companyId, input.department)},
      added as (
        insert into members (id, company_id, name, email, department_key, active)
        select ${newId('mem')}, id, ${input.name}, ${input.email}::text, ${input.department}::text, ${input.active}
        from company where ${departmentUsable(input.department)}
        returning *
      )
    select exists (select from company) as company_found, exists (select from department) as department_found, added.*
    from (select 1) as one left join added on true
  `.execute(db);
  const row = rows[0] as Found<MemberRow>;
  if (!row.company_found) throw notFound(`The company ${companyId}`);
  if (input.department !== null && !row.department_found) throw unknownDepartment(input.department);
  return row as MemberRow;
}

/** The columns a member's PATCH may change, as the body names them. */
const memberColumns = { name: 'name', email: 'email', department: 'department_key', active: 'active' } as const;

/**
 * Changes a member (deactivation is `active: false`); a change to nothing leaves updated_at alone. One statement: the
 * member locked, the update only where a field differs, the row answered as it is after.
 */
export async function changeMember(db: Db, companyId: string, id: string, input: MemberPatchValue): Promise<MemberRow> {
  const given = (Object.keys(memberColumns) as Array<keyof typeof memberColumns>).filter((field) => input[field] !== undefined);
  const department = input.department ?? null;
  const sets = given.map((field) => sql`${sql.ref(memberColumns[field])} = ${input[field]}`);
  const differs = given.map((field) => sql`m.${sql.ref(memberColumns[field])} is distinct from ${input[field]}`);
  const changed =
    given.length === 0
      ? sql`changed as (select * from current where false)`
      : sql`changed as (
          update members m set ${sql.join(sets)} from current
          where m.id = current.id and ${departmentUsable(department)} and (${sql.join(differs, sql` or `)})
          returning m.*
        )`;
  const { rows } = await sql<Found<MemberRow>>`
    with ${departmentCte(companyId, department)},
      current as (select * from members where company_id = ${companyId}::uuid and id = ${id} for update),
      ${changed}
    select true as company_found, exists (select from department) as department_found, m.*
    from (select 1) as one
    left join lateral (select * from changed union all select * from current where not exists (select from changed)) as m on true
  `.execute(db);
  const row = rows[0] as Found<MemberRow>;
  if (row.id === null) throw notFound(`The member ${id}`);
  if (department !== null && !row.department_found) throw unknownDepartment(department);
  return row as MemberRow;
}

/** Adds or renames a department; the same name again changes nothing (updated_at included). 404 without the company. */
export async function putDepartment(db: Db, companyId: string, key: string, name: LocalisedText): Promise<DepartmentRow> {
  const { rows } = await sql<Found<DepartmentRow>>`
    with company as (select id from companies where id = ${companyId}::uuid),
      put as (
        insert into departments (company_id, key, name) select id, ${key}, ${JSON.stringify(name)}::jsonb from company
        on conflict (company_id, key) do update set name = excluded.name
          where departments.name is distinct from excluded.name
        returning *
      )
    select exists (select from company) as company_found, true as department_found, d.*
    from (select 1) as one
    left join lateral (
      select * from put
      union all
      select * from departments where company_id = ${companyId}::uuid and key = ${key} and not exists (select from put)
    ) as d on true
  `.execute(db);
  const row = rows[0] as Found<DepartmentRow>;
  if (!row.company_found) throw notFound(`The company ${companyId}`);
  return row as DepartmentRow;
}

/**
 * Deletes a department nobody refers to; one that members or leads name is refused (409). One statement: the
 * department locked, its users counted, the delete only when there are none. A member or lead given the department
 * while the statement waited for its lock fails the delete on the foreign key: it runs again, and counts them.
 */
export async function deleteDepartment(db: Db, companyId: string, key: string): Promise<void> {
  const attempt = async (): Promise<{ members: number; leads: number } | Stale> => {
    try {
      const { rows } = await sql<{ found: boolean; members: string; leads: string }>`
        with found as (select key from departments where company_id = ${companyId}::uuid and key = ${key} for update),
          users as (
            select (select count(*) from members where company_id = ${companyId}::uuid and department_key = ${key}) as members,
              (select count(*) from leads where company_id = ${companyId}::uuid and department_key = ${key}) as leads
          ),
          gone as (
            delete from departments d using users
            where d.company_id = ${companyId}::uuid and d.key in (select key from found) and users.members = 0 and users.leads = 0
            returning d.key
          )
        select exists (select from found) as found, users.members::text as members, users.leads::text as leads from users
      `.execute(db);
      const row = rows[0] as { found: boolean; members: string; leads: string };
      if (!row.found) throw notFound(`The department ${key}`);
      return { members: Number(row.members), leads: Number(row.leads) };
    } catch (error) {
      if (isForeignKeyViolation(error)) return stale;
      throw error;
    }
  };
  const users = await writeOnce(attempt);
  if (users.members > 0 || users.leads > 0) {
    throw new ApiError(
      'conflict',
      `The department ${key} is still used by ${users.members} member(s) and ${users.leads} lead(s); move them to another department first.`,
    );
  }
}

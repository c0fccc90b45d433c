import type { Selectable, Updateable } from 'kysely';
import type { Trx } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { localised } from '../../lib/localise';
import { newId } from '../../lib/references';
import type { DepartmentsTable, MemberRow, MembersTable } from '../../schema/crm/db';
import type { MemberInputValue, MemberPatchValue } from '../../schema/crm/members';
import type { LocalisedText } from '../../schema/common/columns';
import { iso } from '../../lib/dates';

export type DepartmentRow = Selectable<DepartmentsTable>;

export const presentMember = (m: MemberRow) => ({
  id: m.id,
  name: m.name,
  email: m.email,
  department: m.department_key,
  active: m.active,
  updated_at: iso(m.updated_at),
});

export const presentDepartment = (d: DepartmentRow) => ({
  key: d.key,
  name: localised(d.name),
  updated_at: iso(d.updated_at),
});

/** A member's department must exist; it is share-locked so it cannot be deleted before this commits. */
async function requireDepartment(trx: Trx, companyId: string, key: string | null | undefined): Promise<void> {
  if (key === null || key === undefined) return;
  const found = await trx
    .selectFrom('departments')
    .select('key')
    .where('company_id', '=', companyId)
    .where('key', '=', key)
    .forKeyShare()
    .executeTakeFirst();
  if (!found) {
    throw new ApiError('invalid_request', `The company has no department "${key}".`, {
      errors: [{ path: 'department', code: 'unknown_department', message: 'Create it first: PUT /departments/{key}.' }],
    });
  }
}

export async function createMember(trx: Trx, companyId: string, input: MemberInputValue): Promise<MemberRow> {
  await requireDepartment(trx, companyId, input.department);
  return trx
    .insertInto('members')
    .values({
      id: newId('mem'),
      company_id: companyId,
      name: input.name,
      email: input.email,
      department_key: input.department,
      active: input.active,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Changes a member (deactivation is `active: false`); a change to nothing leaves updated_at alone. */
export async function updateMember(trx: Trx, companyId: string, id: string, input: MemberPatchValue): Promise<MemberRow> {
  const current = await trx
    .selectFrom('members')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (!current) throw notFound(`The member ${id}`);
  await requireDepartment(trx, companyId, input.department);
  const set: Updateable<MembersTable> = {};
  if (input.name !== undefined && input.name !== current.name) set.name = input.name;
  if (input.email !== undefined && input.email !== current.email) set.email = input.email;
  if (input.department !== undefined && input.department !== current.department_key) set.department_key = input.department;
  if (input.active !== undefined && input.active !== current.active) set.active = input.active;
  if (Object.keys(set).length === 0) return current;
  return trx.updateTable('members').set(set).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Adds or renames a department; the same name again changes nothing (updated_at included). */
export async function putDepartment(trx: Trx, companyId: string, key: string, name: LocalisedText): Promise<DepartmentRow> {
  const text = JSON.stringify(name);
  await trx
    .insertInto('departments')
    .values({ company_id: companyId, key, name: text })
    .onConflict((oc) =>
      oc
        .columns(['company_id', 'key'])
        .doUpdateSet({ name: text })
        .where('departments.name', 'is distinct from', (eb) => eb.ref('excluded.name')),
    )
    .execute();
  return trx
    .selectFrom('departments')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('key', '=', key)
    .executeTakeFirstOrThrow();
}

/** Deletes a department nobody refers to; one that members or leads name is refused (409). */
export async function deleteDepartment(trx: Trx, companyId: string, key: string): Promise<void> {
  const found = await trx
    .selectFrom('departments')
    .select('key')
    .where('company_id', '=', companyId)
    .where('key', '=', key)
    .forUpdate()
    .executeTakeFirst();
  if (!found) throw notFound(`The department ${key}`);
  const users = await trx
    .selectNoFrom((eb) => [
      eb
        .selectFrom('members')
        .select(eb.fn.countAll<string>().as('n'))
        .where('company_id', '=', companyId)
        .where('department_key', '=', key)
        .as('members'),
      eb
        .selectFrom('leads')
        .select(eb.fn.countAll<string>().as('n'))
        .where('company_id', '=', companyId)
        .where('department_key', '=', key)
        .as('leads'),
    ])
    .executeTakeFirstOrThrow();
  const members = Number(users.members);
  const leads = Number(users.leads);
  if (members > 0 || leads > 0) {
    throw new ApiError(
      'conflict',
      `The department ${key} is still used by ${members} member(s) and ${leads} lead(s); move them to another department first.`,
    );
  }
  await trx.deleteFrom('departments').where('company_id', '=', companyId).where('key', '=', key).execute();
}

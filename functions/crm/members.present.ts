import type { z } from '@hono/zod-openapi';
import type { Selectable } from 'kysely';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { localised } from '../../lib/localise';
import type { DepartmentsTable, MemberRow } from '../../schema/crm/db';
import type { DepartmentSchema, MemberSchema } from '../../schema/crm/members';

export type DepartmentRow = Selectable<DepartmentsTable>;

/** A company's members (active and deactivated). */
export function selectMembers(executor: Executor, companyId: string) {
  return executor.selectFrom('members').selectAll('members').where('members.company_id', '=', companyId);
}

/** A company's departments. */
export function selectDepartments(executor: Executor, companyId: string) {
  return executor.selectFrom('departments').selectAll('departments').where('departments.company_id', '=', companyId);
}

export function presentMember(m: MemberRow): z.infer<typeof MemberSchema> {
  return {
    id: m.id,
    name: m.name,
    email: m.email,
    department: m.department_key,
    active: m.active,
    updated_at: iso(m.updated_at),
  };
}

export function presentDepartment(d: DepartmentRow): z.infer<typeof DepartmentSchema> {
  return { key: d.key, name: localised(d.name), updated_at: iso(d.updated_at) };
}

import { createRouter } from '../../lib/app';
import { syncList, syncResource } from '../../lib/resources';
import { json } from '../../schema/common/api';
import { DepartmentListSchema, MemberListSchema, MembersQuery } from '../../schema/crm/members';
import { presentDepartment, presentMember } from './members';
import { crmRoute } from './route';

/**
 * Team members and departments, for assignees and `by`. A member's email is staff contact data, not a
 * customer's personal data: these reads are not written to the audit log.
 */
const memberResource = syncResource('members', {
  idType: 'text',
  noun: 'member',
  select: (db, companyId) => db.selectFrom('members').selectAll('members').where('members.company_id', '=', companyId),
  present: (_services, rows) => rows.map(presentMember),
});
const departmentResource = syncResource('departments', {
  idType: 'text',
  key: 'key',
  noun: 'department',
  select: (db, companyId) =>
    db.selectFrom('departments').selectAll('departments').where('departments.company_id', '=', companyId),
  present: (_services, rows) => rows.map(presentDepartment),
});

const membersRoute = crmRoute('read:members', {
  method: 'get',
  path: '/members',
  summary: 'Team members (active and deactivated), in (updated_at, id) order for sync',
  request: { query: MembersQuery },
  responses: { 200: json(MemberListSchema, 'A page of members') },
});
const departmentsRoute = crmRoute('read:members', {
  method: 'get',
  path: '/departments',
  summary: 'Departments, by key, in (updated_at, key) order for sync',
  request: { query: MembersQuery },
  responses: { 200: json(DepartmentListSchema, 'A page of departments') },
});

export const members = createRouter()
  .openapi(membersRoute, async (c) => c.json(await syncList(c, memberResource, c.req.valid('query')), 200))
  .openapi(departmentsRoute, async (c) => c.json(await syncList(c, departmentResource, c.req.valid('query')), 200));

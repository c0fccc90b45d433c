import { createRouter } from '../../lib/app';
import { syncList, syncResource } from '../../lib/resources';
import type { Handler } from '../../lib/routes';
import { json } from '../../schema/common/api';
import { DepartmentListSchema, MemberListSchema, MembersQuery } from '../../schema/crm/members';
import { presentDepartment, presentMember, selectDepartments, selectMembers } from './members.present';
import { crmRoute } from './scopes';

/**
 * Team members and departments, for assignees and `by`. A member's email is staff contact data, not a
 * customer's personal data: these reads are not written to the audit log.
 */
const memberResource = syncResource('members', {
  idType: 'text',
  noun: 'member',
  select: selectMembers,
  present: (_services, rows) => rows.map(presentMember),
});
const departmentResource = syncResource('departments', {
  idType: 'text',
  key: 'key',
  noun: 'department',
  select: selectDepartments,
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

const listMembers: Handler<typeof membersRoute> = async (c) =>
  c.json(await syncList(c, memberResource, c.req.valid('query')), 200);

const listDepartments: Handler<typeof departmentsRoute> = async (c) =>
  c.json(await syncList(c, departmentResource, c.req.valid('query')), 200);

export const members = createRouter().openapi(membersRoute, listMembers).openapi(departmentsRoute, listDepartments);

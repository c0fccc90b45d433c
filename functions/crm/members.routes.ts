import { createRouter } from '../../lib/app';
import type { KeysetSort } from '../../lib/pagination';
import { DepartmentListSchema, MemberListSchema, MembersQuery } from '../../schema/crm/members';
import { presentDepartment, presentMember } from './members';
import { crmRoute } from './route';
import { syncPage, syncSort } from '../../lib/sync';

/**
 * Team members and departments, for assignees and `by`. A member's email is staff contact data, not a
 * customer's personal data: these reads are not written to the audit log.
 */
const memberSort = syncSort('members', 'text');
const departmentSort: KeysetSort = {
  name: 'departments_sync',
  columns: [
    { ref: 'departments.updated_at', direction: 'asc', type: 'timestamptz' },
    { ref: 'departments.key', direction: 'asc', type: 'text' },
  ],
};

const membersRoute = crmRoute('read:members', {
  method: 'get',
  path: '/members',
  summary: 'Team members (active and deactivated), in (updated_at, id) order for sync',
  request: { query: MembersQuery },
  responses: { 200: { description: 'A page of members', content: { 'application/json': { schema: MemberListSchema } } } },
});
const departmentsRoute = crmRoute('read:members', {
  method: 'get',
  path: '/departments',
  summary: 'Departments, by key, in (updated_at, key) order for sync',
  request: { query: MembersQuery },
  responses: {
    200: { description: 'A page of departments', content: { 'application/json': { schema: DepartmentListSchema } } },
  },
});

export const members = createRouter()
  .openapi(membersRoute, async (c) => {
    const query = c.req.valid('query');
    const select = c.var.services.db
      .selectFrom('members')
      .selectAll('members')
      .where('members.company_id', '=', c.var.company.id);
    const page = await syncPage(select, memberSort, query);
    return c.json({ results: page.rows.map(presentMember), next_cursor: page.next_cursor }, 200);
  })
  .openapi(departmentsRoute, async (c) => {
    const query = c.req.valid('query');
    const select = c.var.services.db
      .selectFrom('departments')
      .selectAll('departments')
      .where('departments.company_id', '=', c.var.company.id);
    const page = await syncPage(select, departmentSort, query);
    return c.json({ results: page.rows.map(presentDepartment), next_cursor: page.next_cursor }, 200);
  });

import { z } from '@hono/zod-openapi';
import { adminRoute, companyParam } from '../../lib/admin-route';
import { createRouter } from '../../lib/app';
import type { Handler } from '../../lib/routes';
import { json, jsonBody, problem } from '../../schema/common/api';
import {
  DepartmentInput,
  DepartmentSchema,
  departmentKey,
  MemberInput,
  MemberPatchInput,
  MemberSchema,
} from '../../schema/crm/members';
import { eraseByReference } from './erasure';
import { addMember, changeMember, deleteDepartment, membersByName, putDepartment } from './members';
import { presentDepartment, presentMember } from './members.present';

const memberParams = companyParam.extend({ member_id: z.string().regex(/^mem_[A-Za-z0-9]{1,60}$/) });
const departmentParams = companyParam.extend({ key: departmentKey });
const personParams = companyParam.extend({ reference: z.string().regex(/^P-[0-9A-Z]{10}$/) });

const addMemberRoute = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/members',
  summary: 'Add a team member (an assignee of leads and tasks)',
  request: { params: companyParam, body: jsonBody(MemberInput) },
  responses: { 201: json(MemberSchema, 'Created') },
});
const listMembersRoute = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/members',
  summary: 'Every member, active or not, by name',
  request: { params: companyParam },
  responses: { 200: json(z.object({ results: z.array(MemberSchema), next_cursor: z.null() })) },
});
const patchMemberRoute = adminRoute({
  method: 'patch',
  path: '/companies/{company_id}/members/{member_id}',
  summary: 'Change a member; `active: false` deactivates (members are never deleted)',
  request: { params: memberParams, body: jsonBody(MemberPatchInput) },
  responses: { 200: json(MemberSchema) },
});
const putDepartmentRoute = adminRoute({
  method: 'put',
  path: '/companies/{company_id}/departments/{key}',
  summary: 'Add or rename a department',
  request: { params: departmentParams, body: jsonBody(DepartmentInput) },
  responses: { 200: json(DepartmentSchema) },
});
const deleteDepartmentRoute = adminRoute({
  method: 'delete',
  path: '/companies/{company_id}/departments/{key}',
  summary: 'Delete a department no member or lead refers to (409 otherwise)',
  request: { params: departmentParams },
  responses: {
    204: { description: 'Deleted' },
    409: problem('Members or leads still refer to it'),
  },
});
const eraseRoute = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/contacts/{reference}/erase',
  summary: 'Erase a person and their leads (a privacy request). Irreversible.',
  request: { params: personParams },
  responses: { 200: json(z.object({ reference: z.string(), erased: z.literal(true), already_erased: z.boolean() })) },
});

const postMember: Handler<typeof addMemberRoute> = async (c) =>
  c.json(presentMember(await addMember(c.var.services.db, c.req.valid('param').company_id, c.req.valid('json'))), 201);

const listMembers: Handler<typeof listMembersRoute> = async (c) => {
  const rows = await membersByName(c.var.services.db, c.req.valid('param').company_id);
  return c.json({ results: rows.map(presentMember), next_cursor: null }, 200);
};

const patchMember: Handler<typeof patchMemberRoute> = async (c) => {
  const { company_id, member_id } = c.req.valid('param');
  return c.json(presentMember(await changeMember(c.var.services.db, company_id, member_id, c.req.valid('json'))), 200);
};

const putDepartmentHandler: Handler<typeof putDepartmentRoute> = async (c) => {
  const { company_id, key } = c.req.valid('param');
  return c.json(presentDepartment(await putDepartment(c.var.services.db, company_id, key, c.req.valid('json').name)), 200);
};

const deleteDepartmentHandler: Handler<typeof deleteDepartmentRoute> = async (c) => {
  const { company_id, key } = c.req.valid('param');
  await deleteDepartment(c.var.services.db, company_id, key);
  return c.body(null, 204);
};

const erasePerson: Handler<typeof eraseRoute> = async (c) => {
  const { company_id, reference } = c.req.valid('param');
  const result = await eraseByReference(c.var.services.db, company_id, reference, c.var.services.now());
  return c.json({ reference, erased: true as const, ...result }, 200);
};

/** The CRM's admin routes: members and departments, then erasure. */
export const crmAdmin = createRouter()
  .openapi(addMemberRoute, postMember)
  .openapi(listMembersRoute, listMembers)
  .openapi(patchMemberRoute, patchMember)
  .openapi(putDepartmentRoute, putDepartmentHandler)
  .openapi(deleteDepartmentRoute, deleteDepartmentHandler)
  .openapi(eraseRoute, erasePerson);

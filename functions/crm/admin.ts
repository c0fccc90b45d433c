import { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/app';
import { json, jsonBody, problem } from '../../schema/common/api';
import {
  DepartmentInput,
  DepartmentSchema,
  departmentKey,
  MemberInput,
  MemberPatchInput,
  MemberSchema,
} from '../../schema/crm/members';
import { createMember, deleteDepartment, presentDepartment, presentMember, putDepartment, updateMember } from './members';
import { findCompany } from '../../lib/admin-route';
import { adminRoute, companyParam } from '../../lib/admin-route';
import { notFound } from '../../lib/errors';
import { eraseContact } from './erasure';

const memberParams = companyParam.extend({ member_id: z.string().regex(/^mem_[A-Za-z0-9]{1,60}$/) });
const departmentParams = companyParam.extend({ key: departmentKey });
const personParams = companyParam.extend({ reference: z.string().regex(/^P-[0-9A-Z]{10}$/) });

const addMember = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/members',
  summary: 'Add a team member (an assignee of leads and tasks)',
  request: { params: companyParam, body: jsonBody(MemberInput) },
  responses: { 201: json(MemberSchema, 'Created') },
});
const listMembers = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/members',
  summary: 'Every member, active or not, by name',
  request: { params: companyParam },
  responses: { 200: json(z.object({ results: z.array(MemberSchema), next_cursor: z.null() })) },
});
const patchMember = adminRoute({
  method: 'patch',
  path: '/companies/{company_id}/members/{member_id}',
  summary: 'Change a member; `active: false` deactivates (members are never deleted)',
  request: { params: memberParams, body: jsonBody(MemberPatchInput) },
  responses: { 200: json(MemberSchema) },
});
const putDept = adminRoute({
  method: 'put',
  path: '/companies/{company_id}/departments/{key}',
  summary: 'Add or rename a department',
  request: { params: departmentParams, body: jsonBody(DepartmentInput) },
  responses: { 200: json(DepartmentSchema) },
});
const deleteDept = adminRoute({
  method: 'delete',
  path: '/companies/{company_id}/departments/{key}',
  summary: 'Delete a department no member or lead refers to (409 otherwise)',
  request: { params: departmentParams },
  responses: {
    204: { description: 'Deleted' },
    409: problem('Members or leads still refer to it'),
  },
});

const erase = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/contacts/{reference}/erase',
  summary: 'Erase a person and their leads (a privacy request). Irreversible.',
  request: { params: personParams },
  responses: { 200: json(z.object({ reference: z.string(), erased: z.literal(true), already_erased: z.boolean() })) },
});

/** The CRM's admin routes: members and departments, then erasure. */
export const crmAdmin = createRouter()
  .openapi(addMember, async (c) => {
    const { company_id } = c.req.valid('param');
    const input = c.req.valid('json');
    const row = await c.var.services.db.transaction().execute(async (trx) => {
      await findCompany(trx, company_id);
      return createMember(trx, company_id, input);
    });
    return c.json(presentMember(row), 201);
  })
  .openapi(listMembers, async (c) => {
    const { company_id } = c.req.valid('param');
    const db = c.var.services.db;
    await findCompany(db, company_id);
    const rows = await db
      .selectFrom('members')
      .selectAll()
      .where('company_id', '=', company_id)
      .orderBy('name')
      .orderBy('id')
      .execute();
    return c.json({ results: rows.map(presentMember), next_cursor: null }, 200);
  })
  .openapi(patchMember, async (c) => {
    const { company_id, member_id } = c.req.valid('param');
    const input = c.req.valid('json');
    const row = await c.var.services.db.transaction().execute((trx) => updateMember(trx, company_id, member_id, input));
    return c.json(presentMember(row), 200);
  })
  .openapi(putDept, async (c) => {
    const { company_id, key } = c.req.valid('param');
    const { name } = c.req.valid('json');
    const row = await c.var.services.db.transaction().execute(async (trx) => {
      await findCompany(trx, company_id);
      return putDepartment(trx, company_id, key, name);
    });
    return c.json(presentDepartment(row), 200);
  })
  .openapi(deleteDept, async (c) => {
    const { company_id, key } = c.req.valid('param');
    await c.var.services.db.transaction().execute((trx) => deleteDepartment(trx, company_id, key));
    return c.body(null, 204);
  })
  .openapi(erase, async (c) => {
    const { company_id, reference } = c.req.valid('param');
    const result = await c.var.services.db.transaction().execute(async (trx) => {
      const contact = await trx
        .selectFrom('contacts')
        .select(['id', 'erased'])
        .where('company_id', '=', company_id)
        .where('reference', '=', reference)
        .executeTakeFirst();
      if (!contact) throw notFound(`The person ${reference}`);
      const erasedNow = await eraseContact(trx, company_id, contact.id, 'admin');
      return { already_erased: !erasedNow };
    });
    return c.json({ reference, erased: true as const, ...result }, 200);
  });

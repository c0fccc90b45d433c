import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { syncQuery, LocalisedTextInput, LocalisedTextSchema, listOf } from '../common/api';

export const departmentKey = text().regex(
  /^[a-z0-9][a-z0-9_-]{0,63}$/,
  'Lower-case letters, digits, "_" and "-", up to 64 characters.',
);

export const MemberSchema = z
  .object({
    id: z.string().openapi({ example: 'mem_3kq9XbT2mN8pWv4Rz7Ya' }),
    name: z.string(),
    email: z.string().nullable(),
    department: z.string().nullable().openapi({ description: 'A department `key`.' }),
    active: z.boolean().openapi({ description: 'A deactivated member stays listed, so synced assignees keep a name.' }),
    updated_at: z.string(),
  })
  .openapi('Member');

export const DepartmentSchema = z
  .object({ key: z.string(), name: LocalisedTextSchema, updated_at: z.string() })
  .openapi('Department');

export const MemberListSchema = listOf(MemberSchema, 'MemberList');
export const DepartmentListSchema = listOf(DepartmentSchema, 'DepartmentList');

/** Members and departments have no external ids: `updated_since` and paging only. */
export const MembersQuery = z.strictObject({ ...syncQuery });

// Admin inputs.
const memberFields = {
  name: text().trim().min(1).max(200),
  email: text().trim().max(254).pipe(z.email()).nullable(),
  department: departmentKey.nullable(),
  active: z.boolean(),
};

export const MemberInput = z
  .strictObject({
    name: memberFields.name,
    email: memberFields.email.default(null),
    department: memberFields.department.default(null),
    active: memberFields.active.default(true),
  })
  .openapi('AdminMemberInput');

export const MemberPatchInput = z.strictObject(memberFields).partial().openapi('AdminMemberPatch');

export const DepartmentInput = z.strictObject({ name: LocalisedTextInput }).openapi('AdminDepartmentInput');

export type MemberInputValue = z.infer<typeof MemberInput>;
export type MemberPatchValue = z.infer<typeof MemberPatchInput>;

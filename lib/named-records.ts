import { type RawBuilder, sql } from 'kysely';
import type { Executor } from './db/index';
import { ApiError } from './errors';

/**
 * The records a write's body names (a person, a member, a home, a department), resolved in the company or refused with
 * `400 invalid_request` naming the field: the one place every group takes these rules from. Each lookup comes as a
 * query (for a write in a transaction) and, for the members and departments, as an SQL condition its caller puts in
 * the one read statement of a write (lib/write.ts) beside the error it raises when the condition is false.
 */

/** A field of the body that names nothing usable: `400 invalid_request` with `errors[].code` at `path`. */
export function fieldProblem(path: string, code: string, message: string): ApiError {
  return new ApiError('invalid_request', message, { errors: [{ path, code, message }] });
}

/** A reference or id in the body that names no record of this company: `400`, code `unknown_reference`, at `path`. */
export function unknownReference(path: string, message: string): ApiError {
  return fieldProblem(path, 'unknown_reference', message);
}

/** Which members a field may name: any member (who did something), or only an active one (who is to do something). */
export type MemberRule = { path: string; active?: boolean };

/** Whether `id` is a member of the company (active, with `rule.active`): an SQL condition for a read statement. */
export function memberKnown(companyId: string, id: string, rule: MemberRule): RawBuilder<boolean> {
  const active = rule.active ? sql`and active` : sql``;
  return sql<boolean>`exists (select from members where company_id = ${companyId}::uuid and id = ${id} ${active})`;
}

/** The refusal of a member the condition above did not find. */
export function unknownMember(id: string, rule: MemberRule): ApiError {
  return unknownReference(rule.path, `${id} is not ${rule.active ? 'an active member' : 'a member'} of this company.`);
}

/** A member of the company by id, as {@link memberKnown} and {@link unknownMember} say (400 at `rule.path` otherwise). */
export async function checkMember(executor: Executor, companyId: string, id: string, rule: MemberRule): Promise<void> {
  const { rows } = await sql<{ known: boolean }>`select ${memberKnown(companyId, id, rule)} as known`.execute(executor);
  if (!rows[0]?.known) throw unknownMember(id, rule);
}

/** Whether `key` is a department of the company: an SQL condition for a read statement. */
export function departmentKnown(companyId: string, key: string): RawBuilder<boolean> {
  return sql<boolean>`exists (select from departments where company_id = ${companyId}::uuid and key = ${key})`;
}

/** The refusal of a department the condition above did not find (400 at `department`). */
export function unknownDepartment(key: string): ApiError {
  return unknownReference('department', `${key} is not a department of this company.`);
}

/** A department of the company by key (400 at `department` otherwise). */
export async function checkDepartment(executor: Executor, companyId: string, key: string): Promise<void> {
  const { rows } = await sql<{ known: boolean }>`select ${departmentKnown(companyId, key)} as known`.execute(executor);
  if (!rows[0]?.known) throw unknownDepartment(key);
}

/** A contact of the company by its reference; unknown or erased is 400 at `path`. */
export async function resolveContact(executor: Executor, companyId: string, reference: string, path: string): Promise<string> {
  const contact = await executor
    .selectFrom('contacts')
    .select(['id', 'erased'])
    .where('company_id', '=', companyId)
    .where('reference', '=', reference)
    .executeTakeFirst();
  if (!contact) throw unknownReference(path, `${reference} is not a contact of this company.`);
  if (contact.erased) throw fieldProblem(path, 'contact_erased', `The contact ${reference} is erased.`);
  return contact.id;
}

/** A listing of the company (any type and status) by its English slug; unknown is 400 at `path`. */
export async function resolveListing(executor: Executor, companyId: string, slug: string, path = 'home') {
  const listing = await executor
    .selectFrom('listings')
    .select(['id', 'listing_type'])
    .where('company_id', '=', companyId)
    .where('slug_en', '=', slug)
    .executeTakeFirst();
  if (!listing) throw unknownReference(path, `${slug} is not a listing of this company.`);
  return listing;
}

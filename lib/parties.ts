import type { Executor } from './db/index';
import { ApiError } from './errors';

/**
 * The records a write names by reference (a person, a member, a home), resolved in the company or refused with
 * `400 invalid_request` naming the field: shared by every group that names them (leases, deals, viewings).
 */

/** A field of the body that names nothing usable: `400 invalid_request` with `errors[].code` at `path`. */
export function fieldProblem(path: string, code: string, message: string): ApiError {
  return new ApiError('invalid_request', message, { errors: [{ path, code, message }] });
}

/** A contact of the company by its reference; unknown or erased is 400 at `path`. */
export async function resolveContact(executor: Executor, companyId: string, reference: string, path: string): Promise<string> {
  const contact = await executor
    .selectFrom('contacts')
    .select(['id', 'erased'])
    .where('company_id', '=', companyId)
    .where('reference', '=', reference)
    .executeTakeFirst();
  if (!contact) throw fieldProblem(path, 'unknown_reference', `${reference} is not a contact of this company.`);
  if (contact.erased) throw fieldProblem(path, 'contact_erased', `The contact ${reference} is erased.`);
  return contact.id;
}

/** A member of the company by id (400 at `path`, `handler` by default, otherwise). */
export async function checkHandler(executor: Executor, companyId: string, id: string, path = 'handler'): Promise<void> {
  const member = await executor
    .selectFrom('members')
    .select('id')
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!member) throw fieldProblem(path, 'unknown_reference', `${id} is not a member of this company.`);
}

/** A listing of the company (any type and status) by its English slug; unknown is 400 at `path`. */
export async function resolveListing(executor: Executor, companyId: string, slug: string, path = 'home') {
  const listing = await executor
    .selectFrom('listings')
    .select(['id', 'listing_type'])
    .where('company_id', '=', companyId)
    .where('slug_en', '=', slug)
    .executeTakeFirst();
  if (!listing) throw fieldProblem(path, 'unknown_reference', `${slug} is not a listing of this company.`);
  return listing;
}

/** A department of the company by key (400 at `department` otherwise). */
export async function checkDepartment(executor: Executor, companyId: string, key: string): Promise<void> {
  const department = await executor
    .selectFrom('departments')
    .select('key')
    .where('company_id', '=', companyId)
    .where('key', '=', key)
    .executeTakeFirst();
  if (!department) throw fieldProblem('department', 'unknown_reference', `${key} is not a department of this company.`);
}

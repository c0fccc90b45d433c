import type { Trx } from '../../lib/db/index';
import { ApiError } from '../../lib/errors';

/** A field of the body that names nothing usable: `400 invalid_request` with `errors[].code` at `path`. */
export function fieldProblem(path: string, code: string, message: string): ApiError {
  return new ApiError('invalid_request', message, { errors: [{ path, code, message }] });
}

/** The home of a lease: a `lease` listing of the company by its English slug (any status); anything else is 400. */
export async function resolveHome(trx: Trx, companyId: string, slug: string): Promise<string> {
  const listing = await trx
    .selectFrom('listings')
    .select(['id', 'listing_type'])
    .where('company_id', '=', companyId)
    .where('slug_en', '=', slug)
    .executeTakeFirst();
  if (!listing) throw fieldProblem('home', 'unknown_reference', `${slug} is not a listing of this company.`);
  if (listing.listing_type !== 'lease') {
    throw fieldProblem('home', 'not_a_lease_listing', `${slug} is a ${listing.listing_type} listing, not a lease listing.`);
  }
  return listing.id;
}

/** A contact of the company by its reference (the renter or landlord); unknown or erased is 400 at `path`. */
export async function resolveContact(trx: Trx, companyId: string, reference: string, path: string): Promise<string> {
  const contact = await trx
    .selectFrom('contacts')
    .select(['id', 'erased'])
    .where('company_id', '=', companyId)
    .where('reference', '=', reference)
    .executeTakeFirst();
  if (!contact) throw fieldProblem(path, 'unknown_reference', `${reference} is not a contact of this company.`);
  if (contact.erased) throw fieldProblem(path, 'contact_erased', `The contact ${reference} is erased.`);
  return contact.id;
}

/** The lease's handler: a member of the company (400 at `handler` otherwise). */
export async function checkHandler(trx: Trx, companyId: string, id: string): Promise<void> {
  const member = await trx
    .selectFrom('members')
    .select('id')
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!member) throw fieldProblem('handler', 'unknown_reference', `${id} is not a member of this company.`);
}

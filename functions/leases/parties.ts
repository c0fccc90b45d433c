import type { Trx } from '../../lib/db/index';
import { fieldProblem, resolveListing } from '../../lib/parties';

export { checkHandler, fieldProblem, resolveContact } from '../../lib/parties';

/** The home of a lease: a `lease` listing of the company by its English slug (any status); anything else is 400. */
export async function resolveHome(trx: Trx, companyId: string, slug: string): Promise<string> {
  const listing = await resolveListing(trx, companyId, slug);
  if (listing.listing_type !== 'lease') {
    throw fieldProblem('home', 'not_a_lease_listing', `${slug} is a ${listing.listing_type} listing, not a lease listing.`);
  }
  return listing.id;
}

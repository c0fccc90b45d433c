import type { Trx } from '../../lib/db/index';
import { resolveListing } from '../../lib/parties';

export { checkHandler, fieldProblem, resolveContact } from '../../lib/parties';

/**
 * The home of a lease: a listing of the company by its English slug (any status, unknown is 400), with its type. A home
 * not offered for lease is the company's choice: a warning (`not_a_lease_listing`, warnings.ts), never a refusal.
 */
export async function resolveHome(trx: Trx, companyId: string, slug: string): Promise<{ id: string; type: string }> {
  const listing = await resolveListing(trx, companyId, slug);
  return { id: listing.id, type: listing.listing_type };
}

import type { Executor, Trx } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { checkHandler, fieldProblem } from '../../lib/parties';

/** The shared party checks (lib/parties.ts): a field naming nothing usable, a home by its English slug. */
export { fieldProblem, resolveListing as resolveHome } from '../../lib/parties';

/** The home's active lease, if it has one (read from the leases table; a home has at most one). */
export async function activeLeaseOf(executor: Executor, listingId: string): Promise<string | null> {
  const lease = await executor
    .selectFrom('leases')
    .select('id')
    .where('listing_id', '=', listingId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return lease?.id ?? null;
}

/** A member of the company (400 at `member` otherwise). */
export function checkMember(executor: Executor, companyId: string, id: string, path = 'member'): Promise<void> {
  return checkHandler(executor, companyId, id, path);
}

/**
 * A contractor of the company to give work to, locked (FOR SHARE) so a concurrent stop waits for this write:
 * unknown is 400 at `contractor`; a stopped one is `409 contractor_stopped`.
 */
export async function activeContractor(trx: Trx, companyId: string, id: string): Promise<void> {
  const found = await trx
    .selectFrom('contractors')
    .select(['status', 'name'])
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .forShare()
    .executeTakeFirst();
  if (!found) throw fieldProblem('contractor', 'unknown_reference', `${id} is not a contractor of this company.`);
  if (found.status === 'stopped') {
    throw new ApiError('contractor_stopped', `${found.name} is stopped: no new work is given to them.`);
  }
}

/** Who does a job, checked: the contractor active, the member of the company. */
export async function checkWho(
  trx: Trx,
  companyId: string,
  who: { contractor?: string | null; member?: string | null },
): Promise<void> {
  if (typeof who.contractor === 'string') await activeContractor(trx, companyId, who.contractor);
  if (typeof who.member === 'string') await checkMember(trx, companyId, who.member);
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id from a path (`contractor_id`, `charge_id`): a malformed one names no record, so it is a 404 like an unknown one. */
export function knownId(value: string, noun: string): string {
  if (!uuid.test(value)) throw notFound(`The ${noun} ${value}`);
  return value;
}

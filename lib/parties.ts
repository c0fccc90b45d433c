import type { Executor } from './db/index';
import { checkMember } from './named-records';

/**
 * @deprecated The former name of lib/named-records.ts, kept only while leases, maintenance and pipelines move their
 * imports there (issue 22); remove it then.
 */
export { checkDepartment, fieldProblem, resolveContact, resolveListing } from './named-records';

/** @deprecated `checkMember(executor, companyId, id, { path })` of lib/named-records.ts. */
export function checkHandler(executor: Executor, companyId: string, id: string, path = 'handler'): Promise<void> {
  return checkMember(executor, companyId, id, { path });
}

/**
 * Locks one bare row and reads what it joins, in one statement: the select of a record's answer runs over
 * `(select * from <table> where … for update) as <table>` instead of the table, so the lock is taken inside that
 * subquery (PostgreSQL never pulls a subquery with FOR UPDATE up into its parent) and the joins read after it.
 *
 * Why: under READ COMMITTED, a row locked by `select … join … for update of <table>` that another transaction changed
 * meanwhile is re-checked (EvalPlanQual) with its new version against the whole statement, joins included, with the
 * joined rows as they were: a join on a column the other write changed (the deal's stage, the lease's home) then
 * drops the row, and the caller answers 404 for a record that exists. Re-checked inside the subquery, only the row's
 * own conditions (company, reference) apply.
 *
 * The joins read the statement's snapshot, taken before it waited for the lock: a row that the other write made the
 * record point to and that was committed after that snapshot (a contractor added a moment before) is not in it, and
 * the statement finds nothing. So it runs a second time when it found nothing: the row is then locked by this
 * transaction already, and the new statement's snapshot sees everything that committed before the lock was granted.
 * A record that does not exist costs that second statement; one that does costs one.
 */
export async function readLocked<R>(statement: () => Promise<R | undefined>): Promise<R | undefined> {
  return (await statement()) ?? (await statement());
}

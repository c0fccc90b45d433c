import { sql } from 'kysely';
import { todayIn } from '../../lib/dates';
import { amountIn } from '../../lib/money';
import type { Written } from '../../lib/resources';
import { checkTakes } from '../../lib/transitions';
import { type Stale, stale, type WriteScope } from '../../lib/write';
import type { NoticeInputValue } from '../../schema/leases/leases';
import { factsOf, keptScheduleWarnings, noticesOf } from './lease-changes';
import { leaseMachine, readLease, writeChange } from './leases';
import { type LeaseRecord, type NoticeEntry, noticeEntry } from './leases.present';
import { leaseRules } from './rules';
import { noticeGiven } from './warnings';

/**
 * Records a notice on an active lease (when, by whom, what it says; `given_on` defaults to today in the company's time
 * zone), recomputes the lease's warnings (`notice_late`, `vacate_notice_short` among them) and records
 * `lease.notice_given`, in one statement guarded by the lease's version. A draft or ended lease takes no notice (409
 * `invalid_transition` through the lease machine, naming what the lease may still become). Notices never change.
 */
export async function giveNotice(
  scope: WriteScope,
  reference: string,
  input: NoticeInputValue,
): Promise<Written<LeaseRecord> | Stale> {
  const { company } = scope;
  const { lease } = await readLease(scope, reference);
  checkTakes(leaseMachine, reference, lease.status, 'notice', ['active']);
  const proposed = input.proposed_rent === undefined ? null : amountIn(input.proposed_rent, company.currency, 'proposed_rent');
  const notice = noticeGiven(
    { given_on: input.given_on, given_by: input.by, intent: input.intent, vacate_on: input.vacate_on ?? null },
    todayIn(company.time_zone, scope.now),
  );
  const warnings = keptScheduleWarnings(lease, factsOf(lease), [...noticesOf(lease), notice], leaseRules(company));
  const noted = sql`noted as (
    insert into lease_notices (company_id, lease_id, given_on, given_by, intent, vacate_on, proposed_rent, text)
    select ${company.id}::uuid, changed.id, ${notice.given_on}::date, ${notice.given_by}, ${notice.intent},
      ${notice.vacate_on}::date, ${proposed}::numeric, ${input.text ?? null}::text
    from changed returning *
  )`;
  const row = await writeChange<{ notice: NoticeEntry }>(
    scope,
    lease,
    { warnings: JSON.stringify(warnings) },
    { event: 'lease.notice_given', more: [noted], extra: sql`(select ${noticeEntry('n')} from noted n) as notice` },
  );
  if (row === stale) return stale;
  const { notice: added, ...changed } = row;
  return { row: { ...changed, notices: [...lease.notices, added] }, version: row.version };
}

import { todayIn } from '../../lib/dates';
import type { Trx } from '../../lib/db/index';
import { ApiError } from '../../lib/errors';
import { type CausedBy, recordEvent } from '../../lib/events';
import type { NoticeInputValue } from '../../schema/leases/leases';
import type { Company } from '../../schema/platform/db';
import { keptScheduleWarnings, lockLease, warningContext } from './changes';
import { amountIn } from './leases';
import { leaseRules } from './rules';
import { type LeaseFacts, noticeGiven } from './warnings';

/**
 * Records a notice on an active lease (when, by whom, what it says; `given_on` defaults to today in the company's time
 * zone), recomputes the lease's warnings (`notice_late`, `vacate_notice_short` among them) and records
 * `lease.notice_given`. A draft or ended lease takes no notice (409 `invalid_transition`). Notices never change.
 */
export async function giveNotice(
  trx: Trx,
  company: Company,
  reference: string,
  input: NoticeInputValue,
  now: Date,
  causedBy: CausedBy,
) {
  const lease = await lockLease(trx, company.id, reference);
  if (lease.status !== 'active') {
    throw new ApiError('invalid_transition', `The lease ${reference} is ${lease.status}: only an active lease takes notices.`);
  }
  const rules = leaseRules(company);
  const proposed = input.proposed_rent === undefined ? null : amountIn(input.proposed_rent, rules, 'proposed_rent');
  const notice = noticeGiven(
    { given_on: input.given_on, given_by: input.by, intent: input.intent, vacate_on: input.vacate_on ?? null },
    todayIn(company.time_zone, now),
  );
  await trx
    .insertInto('lease_notices')
    .values({
      company_id: company.id,
      lease_id: lease.id,
      given_on: notice.given_on,
      given_by: notice.given_by,
      intent: notice.intent,
      vacate_on: notice.vacate_on,
      proposed_rent: proposed,
      text: input.text ?? null,
    })
    .execute();
  const context = await warningContext(trx, lease);
  const facts: LeaseFacts = {
    home: { slug: lease.home_slug, type: lease.home_type },
    term: { start: lease.starts_on, end: lease.ends_on },
    rent: { amount: lease.rent_amount, period: lease.rent_period },
    deposit: lease.deposit_amount,
    notice_days: lease.notice_days,
    renews: context.renews,
  };
  const warnings = await keptScheduleWarnings(trx, lease, facts, context.notices, rules);
  await trx
    .updateTable('leases')
    .set({ warnings: JSON.stringify(warnings) })
    .where('id', '=', lease.id)
    .execute();
  await recordEvent(trx, {
    companyId: company.id,
    type: 'lease.notice_given',
    causedBy,
    data: { reference: lease.reference },
  });
  return lease.id;
}

import type { Trx } from '../../lib/db/index';
import { ApiError } from '../../lib/errors';
import { type CausedBy, recordEvent } from '../../lib/events';
import type { RenewInputValue } from '../../schema/leases/leases';
import type { Company } from '../../schema/platform/db';
import { lockLease } from './changes';
import { amountIn, insertDraft, planTerms } from './leases';
import { fieldProblem } from './parties';
import { leaseRules } from './rules';
import { type Rent, renewalTerm } from './term';
import type { LeaseFacts } from './warnings';

/**
 * Renews an active or ended lease: its one renewal draft (same home, parties, deposit, notice period, fee, handler and
 * renewal terms; term following the old one; rent last proposed in a `renew` or `rent_change` notice, else the old
 * rent; as many equal payments as the old schedule), recording `lease.created` with `renews`. A lease with a renewal
 * answers it (`created: false`, whatever its status); concurrent renewals meet on `leases_one_renewal` (run this in
 * `transactionRetryingConflict`: the retry finds the first). A draft is 409 `invalid_transition`.
 */
export async function renewLease(trx: Trx, company: Company, reference: string, input: RenewInputValue, causedBy: CausedBy) {
  const old = await lockLease(trx, company.id, reference);
  const existing = await trx.selectFrom('leases').select('id').where('renews_id', '=', old.id).executeTakeFirst();
  if (existing) return { id: existing.id, created: false };
  if (old.status === 'draft')
    throw new ApiError('invalid_transition', `The lease ${reference} is a draft: renew it once active.`);
  const rules = leaseRules(company);
  const term = input.term ?? renewalTerm({ start: old.starts_on, end: old.ends_on });
  if (term === null) throw fieldProblem('term', 'no_following_term', 'The old term ends on 2999-12-31: send a term.');
  const proposed = await trx
    .selectFrom('lease_notices')
    .select((eb) => eb.cast<string>('proposed_rent', 'text').as('amount'))
    .where('lease_id', '=', old.id)
    .where('intent', 'in', ['renew', 'rent_change'])
    .where('proposed_rent', 'is not', null)
    .orderBy('recorded_at', 'desc')
    .executeTakeFirst();
  const oldRent: Rent = { amount: old.rent_amount, period: old.rent_period };
  const rent: Rent = input.rent
    ? { amount: amountIn(input.rent.amount, rules, 'rent.amount'), period: input.rent.period }
    : { amount: proposed?.amount ?? old.rent_amount, period: old.rent_period };
  const payments = await trx
    .selectFrom('rent_payments')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('lease_id', '=', old.id)
    .where('replaces_id', 'is', null)
    .executeTakeFirstOrThrow();
  const schedule = input.schedule ?? { payments: old.schedule_count ?? Math.min(Math.max(Number(payments.count), 1), 120) };
  const facts: LeaseFacts = {
    home: { slug: old.home_slug, type: old.home_type },
    term,
    rent,
    deposit: old.deposit_amount,
    notice_days: old.notice_days,
    renews: { rent: oldRent },
  };
  const plan = planTerms(facts, schedule, [], rules);
  const lease = await insertDraft(
    trx,
    company.id,
    {
      listing_id: old.listing_id,
      renter_id: old.renter_id,
      landlord_id: old.landlord_id,
      starts_on: term.start,
      ends_on: term.end,
      rent_amount: rent.amount,
      rent_period: rent.period,
      deposit_amount: old.deposit_amount,
      notice_days: old.notice_days,
      renewal_terms: old.renewal_terms,
      renews_id: old.id,
      fee_kind: old.fee_kind,
      fee_value: old.fee_value,
      handler_id: old.handler_id,
      notes: input.notes ?? null,
    },
    plan,
  );
  const data = { reference: lease.reference };
  await recordEvent(trx, { companyId: company.id, type: 'lease.created', causedBy, data });
  return { id: lease.id, created: true };
}

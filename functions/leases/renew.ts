import { sql } from 'kysely';
import { notFound } from '../../lib/errors';
import { amountIn } from '../../lib/money';
import { fieldProblem } from '../../lib/named-records';
import type { Written } from '../../lib/resources';
import { checkTakes } from '../../lib/transitions';
import type { WriteScope } from '../../lib/write';
import type { RenewInputValue } from '../../schema/leases/leases';
import { leaseAsRead, leaseMachine, planTerms, readLeases, writeDraft } from './leases';
import type { LeaseRecord } from './leases.present';
import { leaseRules } from './rules';
import { type Rent, renewalTerm } from './term';
import type { LeaseFacts } from './warnings';

/**
 * Renews an active or ended lease: its one renewal draft (same home, parties, deposit, notice period, fee, handler and
 * renewal terms; term following the old one; rent last proposed in a `renew` or `rent_change` notice, else the old
 * rent; as many equal payments as the old schedule), recording `lease.created`. A lease with a renewal answers it
 * (`created: false`, whatever its status): the read finds both. Concurrent renewals meet on `leases_one_renewal`; the
 * losers' statements fail there, run again (lib/write.ts) and find the first. A draft is 409 `invalid_transition` (the lease machine: it may only become active).
 */
export async function renewLease(scope: WriteScope, reference: string, input: RenewInputValue): Promise<Written<LeaseRecord>> {
  const { db, company } = scope;
  const where = sql<boolean>`leases.reference = ${reference} or leases.renews_id =
    (select id from leases where company_id = ${company.id}::uuid and reference = ${reference})`;
  const { leases } = await readLeases(db, company.id, {}, where);
  const old = leases.find((lease) => lease.reference === reference);
  if (!old) throw notFound(`The lease ${reference}`);
  const renewal = leases.find((lease) => lease.renews_id === old.id);
  if (renewal) return leaseAsRead(scope, renewal);
  checkTakes(leaseMachine, reference, old.status, 'renewal', ['active', 'ended']);
  const rules = leaseRules(company);
  const term = input.term ?? renewalTerm({ start: old.starts_on, end: old.ends_on });
  if (term === null) throw fieldProblem('term', 'no_following_term', 'The old term ends on 2999-12-31: send a term.');
  const proposed = old.notices.filter((n) => n.intent !== 'vacate' && n.proposed_rent !== null).at(-1);
  const oldRent: Rent = { amount: old.rent_amount, period: old.rent_period };
  const rent: Rent = input.rent
    ? { amount: amountIn(input.rent.amount, company.currency, 'rent.amount'), period: input.rent.period }
    : { amount: proposed?.proposed_rent ?? old.rent_amount, period: old.rent_period };
  const scheduled = old.payments.filter((p) => p.replaces_id === null).length;
  const schedule = input.schedule ?? { payments: old.schedule_count ?? Math.min(Math.max(scheduled, 1), 120) };
  const facts: LeaseFacts = {
    home: { slug: old.home_slug, type: old.home_type },
    term,
    rent,
    deposit: old.deposit_amount,
    notice_days: old.notice_days,
    renews: { rent: oldRent },
  };
  const plan = planTerms(facts, schedule, [], rules);
  const values = {
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
    tax_category: old.tax_category,
  };
  return writeDraft(scope, values, plan, {
    home_slug: old.home_slug,
    home_type: old.home_type,
    renter_reference: old.renter_reference,
    landlord_reference: old.landlord_reference,
    renews_reference: old.reference,
    renews_rent_amount: old.rent_amount,
    renews_rent_period: old.rent_period,
  });
}

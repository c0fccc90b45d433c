import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { feeAmount, isOverdue, leaseRules, overdueFrom } from '../../functions/leases/rules';
import { type LeaseFacts, leaseWarnings, type Notice, noticeGiven, noticeWarnings } from '../../functions/leases/warnings';
import { fitsDigits, minorDigits, storedDigits } from '../../lib/money';
import { anyAmount, anyDate, anyTerm, daysFrom, minorUnits, plusDays } from './support';

/**
 * The lease warnings and rules as functions of the lease, the company's settings and today (functions/leases/): each
 * setting's default, each warning at its edge, and dates anywhere in 1900-2999 never throwing.
 */

const company = (settings: Record<string, unknown> = {}) => ({ currency: 'AED', settings });
const rules = leaseRules(company());
const lease: LeaseFacts = {
  home: { slug: 'marina-2br', type: 'lease' },
  term: { start: '2027-01-01', end: '2027-12-31' },
  rent: { amount: '120000.00', period: 'year' },
  deposit: '6000.00',
  notice_days: 90,
  renews: null,
};
const codes = (facts: LeaseFacts, notices: Notice[] = [], r = rules) => leaseWarnings(facts, notices, [], r).map((w) => w.code);
const notice = (intent: Notice['intent'], given_on: string, vacate_on: string | null = null): Notice => ({
  given_on,
  given_by: 'renter',
  intent,
  vacate_on,
});

describe('the company’s lease rules', () => {
  it('take the documented defaults when the company set none', () => {
    expect(rules).toMatchObject({ digits: 2, noticeDays: 90, graceDays: 5 });
    expect([rules.rentCapPercent?.toString(), rules.depositPercent?.toString(), rules.tolerance.toString()]).toEqual([
      '5',
      '5',
      '0',
    ]);
  });

  it('take the company’s settings, null switching a check off', () => {
    const own = leaseRules({
      currency: 'JPY',
      settings: {
        lease_notice_days: 60,
        lease_rent_cap_percent: null,
        lease_deposit_percent: '10',
        lease_schedule_tolerance: '1.5',
        rent_grace_days: 0,
      },
    });
    expect(own).toMatchObject({ digits: 0, noticeDays: 60, rentCapPercent: null, graceDays: 0 });
    expect([own.depositPercent?.toString(), own.tolerance.toString()]).toEqual(['10', '1.5']);
  });

  it('keep amounts in the currency’s own minor digits (ISO 4217), three for the dinars', () => {
    expect([minorDigits('AED'), minorDigits('JPY'), minorDigits('KWD')]).toEqual([2, 0, 3]);
    expect(['AED', 'JPY', 'KWD', 'BHD', 'OMR'].map(storedDigits)).toEqual([2, 0, 3, 3, 3]);
    expect([
      fitsDigits('100', 0),
      fitsDigits('100.00', 0),
      fitsDigits('100.5', 0),
      fitsDigits('1.25', 1),
      fitsDigits('1.20', 1),
    ]).toEqual([true, true, false, false, true]);
  });
});

describe('not_a_lease_listing', () => {
  it('warns on a home the company offers for sale or as a holiday home, never on a lease listing', () => {
    expect(codes(lease)).toEqual([]);
    for (const type of ['sale', 'holiday_home'])
      expect(codes({ ...lease, home: { slug: 'x', type } })).toEqual(['not_a_lease_listing']);
  });
});

describe('deposit_above_default', () => {
  it('warns above the company’s percentage of a year’s rent, not at it', () => {
    expect(codes(lease)).toEqual([]);
    expect(codes({ ...lease, deposit: '6000.01' })).toEqual(['deposit_above_default']);
    expect(codes({ ...lease, rent: { amount: '10000.00', period: 'month' }, deposit: '6000.01' })).toEqual([
      'deposit_above_default',
    ]);
    expect(leaseWarnings({ ...lease, deposit: '12000' }, [], [], rules)).toEqual([
      { code: 'deposit_above_default', message: "The deposit is above 5% of a year's rent (6000.00)." },
    ]);
    expect(codes({ ...lease, deposit: '12000' }, [], leaseRules(company({ lease_deposit_percent: '10' })))).toEqual([]);
    expect(codes({ ...lease, deposit: '999999' }, [], leaseRules(company({ lease_deposit_percent: null })))).toEqual([]);
  });

  it('agrees with a computation in whole cents for any rent, deposit and percentage', () => {
    fc.assert(
      fc.property(anyAmount(2, 10_000_000), anyAmount(2, 10_000_000), anyAmount(2, 100), (rent, deposit, percent) => {
        const r = leaseRules(company({ lease_deposit_percent: percent }));
        // deposit > rent × percent / 100, in hundredths of cents: deposit × 100 × 100 > rent × percent.
        const above = minorUnits(deposit, 2) * 10_000n > minorUnits(rent, 2) * minorUnits(percent, 2);
        expect(
          codes({ ...lease, rent: { amount: rent, period: 'year' }, deposit }, [], r).includes('deposit_above_default'),
        ).toBe(above);
      }),
    );
  });
});

describe('rent_above_cap', () => {
  const renewal = (amount: string, period: 'month' | 'year' = 'year'): LeaseFacts => ({
    ...lease,
    rent: { amount, period },
    renews: { rent: { amount: '120000.00', period: 'year' } },
  });

  it('warns when a renewal raises a year’s rent above the cap, not at it', () => {
    expect(codes(renewal('126000.00'))).toEqual([]);
    expect(leaseWarnings(renewal('130000.00'), [], [], rules)).toEqual([
      { code: 'rent_above_cap', message: "The renewal raises the rent by 8.33%, above the company's cap of 5%." },
    ]);
    expect(codes(renewal('10500.01', 'month'))).toEqual(['rent_above_cap']);
    expect(codes(renewal('10500.00', 'month'))).toEqual([]);
    expect(codes({ ...lease, rent: { amount: '999999.00', period: 'year' }, deposit: '0' })).toEqual([]);
    expect(codes(renewal('130000.00'), [], leaseRules(company({ lease_rent_cap_percent: '10' })))).toEqual([]);
    expect(codes(renewal('999999.00'), [], leaseRules(company({ lease_rent_cap_percent: null })))).toEqual([]);
  });

  it('warns on a rise from a rent of nothing', () => {
    const fromNothing = { ...renewal('1.00'), deposit: '0', renews: { rent: { amount: '0', period: 'year' as const } } };
    expect(leaseWarnings(fromNothing, [], [], rules).map((w) => w.message)).toEqual([
      "The renewal raises the rent from nothing, above the company's cap of 5%.",
    ]);
  });
});

describe('notice_late and vacate_notice_short', () => {
  it('records a notice as given today unless it says when', () => {
    expect(noticeGiven({ given_by: 'landlord', intent: 'renew', vacate_on: null }, '2027-09-01').given_on).toBe('2027-09-01');
    expect(
      noticeGiven({ given_on: '2027-08-01', given_by: 'landlord', intent: 'renew', vacate_on: null }, '2027-09-01').given_on,
    ).toBe('2027-08-01');
  });

  it('warns notice_late on a notice to renew or change the rent given after the term’s end minus the period', () => {
    // 2027-12-31 minus 90 days is 2027-10-02.
    expect(codes(lease, [notice('renew', '2027-10-02')])).toEqual([]);
    expect(leaseWarnings(lease, [notice('rent_change', '2027-10-03')], [], rules)).toEqual([
      {
        code: 'notice_late',
        message: "Notice given on 2027-10-03; the contract's 90-day notice period required it by 2027-10-02.",
      },
    ]);
    expect(codes({ ...lease, notice_days: 30 }, [notice('renew', '2027-10-03')])).toEqual([]);
  });

  it('warns vacate_notice_short on a vacate notice given less than the period before leaving', () => {
    expect(codes(lease, [notice('vacate', '2027-10-02')])).toEqual([]);
    expect(leaseWarnings(lease, [notice('vacate', '2027-10-03')], [], rules)).toEqual([
      { code: 'vacate_notice_short', message: "89 days' notice to vacate on 2027-12-31; the contract asks for 90." },
    ]);
    expect(codes(lease, [notice('vacate', '2027-03-01', '2027-05-30')])).toEqual([]);
    expect(codes(lease, [notice('vacate', '2027-03-01', '2027-05-29')])).toEqual(['vacate_notice_short']);
  });

  it('lists each warning once, schedule warnings first', () => {
    const schedule = [{ code: 'schedule_total_differs', message: 'x' }];
    const twice = [notice('renew', '2027-11-01'), notice('renew', '2027-11-01'), notice('vacate', '2027-11-01')];
    expect(leaseWarnings({ ...lease, deposit: '7000' }, twice, schedule, rules).map((w) => w.code)).toEqual([
      'schedule_total_differs',
      'deposit_above_default',
      'notice_late',
      'vacate_notice_short',
    ]);
  });

  it('agrees with a day count apart from the code, and never throws, for any term, notice and period', () => {
    const intents = fc.constantFrom('vacate', 'renew', 'rent_change') as fc.Arbitrary<Notice['intent']>;
    fc.assert(
      fc.property(
        anyTerm,
        anyDate,
        fc.option(anyDate),
        intents,
        fc.integer({ min: 0, max: 3650 }),
        (term, given, leaving, intent, days) => {
          const facts = { term, notice_days: days };
          const found = noticeWarnings(notice(intent, given, intent === 'vacate' ? leaving : null), facts).map((w) => w.code);
          if (intent === 'vacate') {
            expect(found).toEqual(daysFrom(given, leaving ?? term.end) < days ? ['vacate_notice_short'] : []);
          } else {
            expect(found).toEqual(daysFrom(given, term.end) < days ? ['notice_late'] : []);
          }
        },
      ),
    );
  });
});

describe('the fee and overdue rent', () => {
  it('takes a percentage of the payment (half up) or a fixed amount, set at receipt', () => {
    expect(feeAmount({ kind: 'percent', value: '5' }, '333.33', 2)).toBe('16.67');
    expect(feeAmount({ kind: 'percent', value: '5' }, '333.30', 2)).toBe('16.67');
    expect(feeAmount({ kind: 'percent', value: '5' }, '333.10', 2)).toBe('16.66');
    expect(feeAmount({ kind: 'percent', value: '7.5' }, '10000', 0)).toBe('750');
    expect(feeAmount({ kind: 'fixed', value: '250' }, '10000.00', 2)).toBe('250.00');
    expect(feeAmount(null, '10000.00', 2)).toBe('0.00');
  });

  it('counts a payment overdue from the day after its due date plus the grace days', () => {
    const due = { status: 'due' as const, due_on: '2027-03-01' };
    expect(overdueFrom('2027-03-01', 5)).toBe('2027-03-07');
    expect([isOverdue(due, 5, '2027-03-06'), isOverdue(due, 5, '2027-03-07')]).toEqual([false, true]);
    expect(isOverdue({ ...due, status: 'received' }, 5, '2027-04-01')).toBe(false);
    expect(isOverdue({ status: 'due', due_on: '2028-02-28' }, 0, '2028-02-29')).toBe(true);
    expect(isOverdue({ status: 'due', due_on: '2999-12-31' }, 365, '2999-12-31')).toBe(false);
  });

  it('never throws for any due date, grace and today', () => {
    fc.assert(
      fc.property(anyDate, fc.integer({ min: 0, max: 365 }), anyDate, (dueOn, grace, today) => {
        expect(isOverdue({ status: 'due', due_on: dueOn }, grace, today)).toBe(today > plusDays(dueOn, grace));
      }),
    );
  });
});

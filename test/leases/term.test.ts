import Big from 'big.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addMonths } from '../../lib/dates';
import { renewalTerm, termMonths, termRent } from '../../functions/leases/term';
import { anyAmount, anyDate, anyTerm, daysFrom, plusDays, plusMonths } from './support';

/** A lease's term: whole months, a renewal's default term, and the term's rent (functions/leases/term.ts). */

describe('whole months', () => {
  it('adds months keeping the day, or clamping it to the month’s last', () => {
    expect(addMonths('2027-01-31', 1)).toBe('2027-02-28');
    expect(addMonths('2028-01-31', 1)).toBe('2028-02-29');
    expect(addMonths('2028-02-29', 12)).toBe('2029-02-28');
    expect(addMonths('2027-11-15', 3)).toBe('2028-02-15');
    expect(addMonths('1900-01-31', 1)).toBe('1900-02-28');
    expect(addMonths('2999-12-31', -1)).toBe('2999-11-30');
  });

  it('agrees with JavaScript’s calendar for any date and month count', () => {
    fc.assert(
      fc.property(anyDate, fc.integer({ min: -24, max: 24 }), (date, months) => {
        const expected = plusMonths(date, months);
        fc.pre(expected >= '1900-01-01' && expected <= '2999-12-31');
        expect(addMonths(date, months)).toBe(expected);
      }),
    );
  });

  it.each([
    ['2027-01-01', '2027-12-31', 12],
    ['2027-03-01', '2027-03-31', 1],
    ['2027-01-31', '2027-02-28', 1],
    ['2028-02-29', '2029-02-28', 12],
    ['2028-02-29', '2029-02-27', 12],
    ['2027-06-15', '2029-06-14', 24],
    ['1900-01-01', '1900-12-31', 12],
    ['2999-01-01', '2999-12-31', 12],
  ])('reads %s to %s as %i months', (start, end, months) => {
    expect(termMonths({ start, end })).toBe(months);
  });

  it.each([
    ['2027-01-01', '2027-01-01'],
    ['2027-01-01', '2027-01-30'],
    ['2027-01-01', '2027-12-30'],
    ['2027-01-15', '2027-12-31'],
  ])('reads %s to %s as not whole months', (start, end) => {
    expect(termMonths({ start, end })).toBeNull();
  });

  it('finds N months in every term that ends the day before its N-month anniversary', () => {
    fc.assert(
      fc.property(anyDate, fc.integer({ min: 1, max: 120 }), (start, months) => {
        const end = plusDays(plusMonths(start, months), -1);
        fc.pre(end <= '2999-12-31');
        expect(termMonths({ start, end })).toBe(months);
      }),
    );
  });
});

describe('a renewal’s default term', () => {
  it.each([
    [
      ['2027-01-01', '2027-12-31'],
      ['2028-01-01', '2028-12-31'],
    ],
    [
      ['2028-02-29', '2029-02-28'],
      ['2029-03-01', '2030-02-28'],
    ],
    [
      ['2027-01-31', '2027-02-28'],
      ['2027-03-01', '2027-03-31'],
    ],
    [
      ['2027-01-15', '2027-04-24'],
      ['2027-04-25', '2027-08-02'],
    ],
    [
      ['2999-01-01', '2999-06-30'],
      ['2999-07-01', '2999-12-31'],
    ],
    [
      ['2999-06-01', '2999-12-30'],
      ['2999-12-31', '2999-12-31'],
    ],
  ])('follows %j with %j', ([start, end], [nextStart, nextEnd]) => {
    expect(renewalTerm({ start: start as string, end: end as string })).toEqual({ start: nextStart, end: nextEnd });
  });

  it('has none after a term ending on 2999-12-31', () => {
    expect(renewalTerm({ start: '2999-01-01', end: '2999-12-31' })).toBeNull();
  });

  it('starts the day after the old term, lasts as long (or until 2999-12-31), and never throws', () => {
    fc.assert(
      fc.property(anyTerm, (term) => {
        const next = renewalTerm(term);
        if (term.end === '2999-12-31') {
          expect(next).toBeNull();
          return;
        }
        if (next === null) throw new Error('no renewal');
        expect(next.start).toBe(plusDays(term.end, 1));
        expect(next.end >= next.start && next.end <= '2999-12-31').toBe(true);
        const months = termMonths(term);
        if (next.end === '2999-12-31') return;
        if (months === null) expect(daysFrom(next.start, next.end)).toBe(daysFrom(term.start, term.end));
        else expect(termMonths(next)).toBe(months);
      }),
    );
  });
});

describe('the term’s rent', () => {
  const aed = 2;
  it.each([
    [{ amount: '120000.00', period: 'year' }, ['2027-01-01', '2027-12-31'], '120000.00'],
    [{ amount: '120000', period: 'year' }, ['2027-01-01', '2027-06-30'], '60000.00'],
    [{ amount: '10000.00', period: 'month' }, ['2028-02-29', '2029-02-28'], '120000.00'],
    [{ amount: '100000.00', period: 'year' }, ['2027-01-01', '2027-01-31'], '8333.33'],
    [{ amount: '36500.00', period: 'year' }, ['2027-01-01', '2027-04-10'], '10000.00'],
    [{ amount: '1000.00', period: 'month' }, ['2027-01-01', '2027-01-10'], '328.77'],
  ] as const)('of %j over %j is %s', (rent, [start, end], total) => {
    expect(termRent(rent, { start, end }, aed).toFixed(aed)).toBe(total);
  });

  it('rounds to the currency’s digits (JPY none), half up', () => {
    expect(termRent({ amount: '100000', period: 'year' }, { start: '2027-01-01', end: '2027-01-31' }, 0).toFixed(0)).toBe('8333');
    expect(termRent({ amount: '100', period: 'year' }, { start: '2027-01-01', end: '2027-02-28' }, 2).toFixed(2)).toBe('16.67');
  });

  it('is exact for any rent of whole months: the monthly rent times the months', () => {
    fc.assert(
      fc.property(anyAmount(2, 99_999_999), anyDate, fc.integer({ min: 1, max: 120 }), (amount, start, months) => {
        const end = plusDays(plusMonths(start, months), -1);
        fc.pre(end <= '2999-12-31');
        expect(termRent({ amount, period: 'month' }, { start, end }, 2).eq(new Big(amount).times(months))).toBe(true);
      }),
    );
  });

  it('never throws for any term and rent', () => {
    fc.assert(
      fc.property(
        anyTerm,
        anyAmount(2),
        fc.constantFrom('month', 'year') as fc.Arbitrary<'month' | 'year'>,
        (term, amount, period) => {
          const total = termRent({ amount, period }, term, 2);
          expect(total.gte(0)).toBe(true);
        },
      ),
    );
  });
});

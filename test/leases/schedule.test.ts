import Big from 'big.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildSchedule, dueDates, splitAmount } from '../../functions/leases/schedule';
import { termRent } from '../../functions/leases/term';
import { anyAmount, anyTerm, minorUnits } from './support';

/** A lease's payment schedule: equal payments, explicit rows, and `schedule_total_differs` (functions/leases/schedule.ts). */

const aed = { digits: 2, tolerance: new Big(0) };
const year2027 = { start: '2027-01-01', end: '2027-12-31' };

describe('equal payments', () => {
  it('splits a year’s rent into equal payments on the same day of the month, the remainder on the first', () => {
    const schedule = buildSchedule({ payments: 3 }, year2027, new Big('100000.00'), aed);
    expect(schedule).toEqual({
      count: 3,
      warnings: [],
      rows: [
        { due_on: '2027-01-01', amount: '33333.34', cheque: null },
        { due_on: '2027-05-01', amount: '33333.33', cheque: null },
        { due_on: '2027-09-01', amount: '33333.33', cheque: null },
      ],
    });
    const quarters = buildSchedule({ payments: 4 }, year2027, new Big('120000.00'), aed);
    expect('rows' in quarters && quarters.rows.map((r) => [r.due_on, r.amount])).toEqual([
      ['2027-01-01', '30000.00'],
      ['2027-04-01', '30000.00'],
      ['2027-07-01', '30000.00'],
      ['2027-10-01', '30000.00'],
    ]);
  });

  it('keeps month ends and leap days as the contract’s day of the month allows', () => {
    expect(dueDates({ start: '2028-01-31', end: '2028-04-29' }, 3)).toEqual(['2028-01-31', '2028-02-29', '2028-03-31']);
    expect(dueDates({ start: '2028-02-29', end: '2029-02-28' }, 2)).toEqual(['2028-02-29', '2028-08-29']);
  });

  it('spaces payments by days over a term that is not whole months (or that the count does not divide)', () => {
    expect(dueDates({ start: '2027-01-01', end: '2027-01-10' }, 3)).toEqual(['2027-01-01', '2027-01-04', '2027-01-07']);
    expect(dueDates(year2027, 5)).toEqual(['2027-01-01', '2027-03-15', '2027-05-27', '2027-08-08', '2027-10-20']);
  });

  it('splits in the currency’s digits: none in JPY, and whole yen on the first payment', () => {
    expect(splitAmount(new Big('100000'), 3, 0)).toEqual(['33334', '33333', '33333']);
    expect(splitAmount(new Big('120000.00'), 7, 2)).toEqual(['17142.90', ...Array(6).fill('17142.85')]);
    expect(splitAmount(new Big('0.05'), 12, 2)).toEqual(['0.05', ...Array(11).fill('0.00')]);
    expect(splitAmount(new Big('0'), 2, 2)).toEqual(['0.00', '0.00']);
  });

  it('sums exactly to the total for any total and count, the others equal and the first larger by less than count units', () => {
    const totals = fc.constantFrom(0, 2).chain((digits) =>
      fc.tuple(
        fc.constant(digits),
        fc.integer({ min: 0, max: 12 }).chain((size) => anyAmount(digits, 10 ** size)),
      ),
    );
    fc.assert(
      fc.property(totals, fc.integer({ min: 1, max: 120 }), ([digits, total], count) => {
        const amounts = splitAmount(new Big(total), count, digits);
        expect(amounts).toHaveLength(count);
        for (const a of amounts) expect(a).toMatch(digits === 0 ? /^\d+$/ : /^\d+\.\d{2}$/);
        const units = amounts.map((a) => minorUnits(a, digits));
        expect(units.reduce((sum, u) => sum + u, 0n)).toBe(minorUnits(total, digits));
        const [first = 0n, ...rest] = units;
        for (const u of rest) expect(u).toBe(rest[0]);
        const extra = first - (rest[0] ?? first);
        expect(extra >= 0n && extra < BigInt(count)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('gives any term, count and rent a schedule (or a problem) without throwing: dates in the term, in order', () => {
    fc.assert(
      fc.property(anyTerm, fc.integer({ min: 1, max: 120 }), anyAmount(2), (term, payments, amount) => {
        const rent = termRent({ amount, period: 'month' }, term, 2);
        const schedule = buildSchedule({ payments }, term, rent, aed);
        if ('problems' in schedule) {
          expect(schedule.problems.map((p) => p.code)).toEqual(['amount_out_of_range']);
          expect(rent.div(payments).plus(new Big(payments).div(100)).gt('999999999999.99')).toBe(true);
          return;
        }
        const dates = schedule.rows.map((r) => r.due_on);
        expect(dates[0]).toBe(term.start);
        expect([...dates].sort()).toEqual(dates);
        for (const d of dates) expect(d >= term.start && d <= term.end).toBe(true);
        const sum = schedule.rows.reduce((s, r) => s.plus(r.amount), new Big(0));
        expect(sum.eq(rent)).toBe(true);
      }),
    );
  });
});

describe('explicit rows (post-dated cheques)', () => {
  const cheques = (amounts: string[]) => ({
    rows: amounts.map((amount, i) => ({
      due_on: `2027-${String(1 + i * 3).padStart(2, '0')}-01`,
      amount,
      cheque: { number: `00012${i}`, bank: 'Emirates NBD' },
    })),
  });

  it('keeps each cheque’s number and bank, one payment per cheque, without a warning when they sum to the rent', () => {
    const schedule = buildSchedule(cheques(['30000', '30000', '30000', '30000.00']), year2027, new Big('120000.00'), aed);
    expect(schedule).toEqual({
      count: null,
      warnings: [],
      rows: [
        { due_on: '2027-01-01', amount: '30000.00', cheque: { number: '000120', bank: 'Emirates NBD' } },
        { due_on: '2027-04-01', amount: '30000.00', cheque: { number: '000121', bank: 'Emirates NBD' } },
        { due_on: '2027-07-01', amount: '30000.00', cheque: { number: '000122', bank: 'Emirates NBD' } },
        { due_on: '2027-10-01', amount: '30000.00', cheque: { number: '000123', bank: 'Emirates NBD' } },
      ],
    });
  });

  it('warns `schedule_total_differs` when the rows sum to another amount than the term’s rent, beyond the tolerance', () => {
    const short = buildSchedule(cheques(['30000', '30000', '30000', '29999.99']), year2027, new Big('120000.00'), aed);
    expect('warnings' in short && short.warnings).toEqual([
      { code: 'schedule_total_differs', message: "The payments sum to 119999.99; the term's rent is 120000.00." },
    ]);
    const over = buildSchedule(cheques(['30000', '30000', '30000', '30000.01']), year2027, new Big('120000.00'), aed);
    expect('warnings' in over && over.warnings.map((w) => w.code)).toEqual(['schedule_total_differs']);
    const tolerated = buildSchedule(cheques(['30000', '30000', '30000', '29999.99']), year2027, new Big('120000.00'), {
      digits: 2,
      tolerance: new Big('0.01'),
    });
    expect('warnings' in tolerated && tolerated.warnings).toEqual([]);
  });

  it('refuses amounts with more digits than the currency has (JPY: none)', () => {
    const jpy = buildSchedule(cheques(['100', '100.50', '100.00']), year2027, new Big('300'), {
      digits: 0,
      tolerance: new Big(0),
    });
    expect(jpy).toEqual({
      problems: [
        {
          path: 'schedule.rows.1.amount',
          code: 'currency_digits',
          message: 'At most 0 digits after the point in this currency.',
        },
      ],
    });
    const whole = buildSchedule(cheques(['100', '100.00']), year2027, new Big('200'), { digits: 0, tolerance: new Big(0) });
    expect('rows' in whole && whole.rows.map((r) => r.amount)).toEqual(['100', '100']);
  });

  it('refuses a split whose payments would not fit a money column', () => {
    const schedule = buildSchedule({ payments: 1 }, { start: '1900-01-01', end: '2999-12-31' }, new Big('1000000000000'), aed);
    expect('problems' in schedule && schedule.problems.map((p) => [p.path, p.code])).toEqual([
      ['schedule.payments', 'amount_out_of_range'],
    ]);
  });
});

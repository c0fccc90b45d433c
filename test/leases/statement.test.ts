import Big from 'big.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leasesOf, useWorld } from '../support/world';
import { plusDays, plusMonths } from './support';

/**
 * "An export grouped by the month of booked_on always gives the same totals": random sequences of receipts,
 * bounces, cancellations, replacements, edits and fee changes, days apart; after every step the owner's statement
 * of each month already over (receipts and fees by booked_on, reversals by bounced_on) is what it was.
 */
const w = useWorld();
const l = leasesOf(w);

type Payment = {
  payment_id: string;
  due_on: string;
  status: string;
  amount: string;
  booked_on: string | null;
  fee_amount: string | null;
  bounced_on: string | null;
};
type Totals = Record<string, { received: string; fees: string; reversed: string }>;

const action = fc.oneof(
  fc.record({ kind: fc.constantFrom('received', 'bounced', 'cancelled'), pick: fc.nat() }),
  fc.record({ kind: fc.constant('replace' as const), pick: fc.nat(), amount: fc.integer({ min: 1, max: 40_000 }) }),
  fc.record({
    kind: fc.constant('edit' as const),
    pick: fc.nat(),
    amount: fc.integer({ min: 0, max: 40_000 }),
    shift: fc.integer({ min: -20, max: 20 }),
  }),
  fc.record({ kind: fc.constant('fee' as const), percent: fc.integer({ min: 0, max: 100 }) }),
);
type Action = typeof action extends fc.Arbitrary<infer T> ? T : never;
const step = fc.record({ days: fc.integer({ min: 0, max: 25 }), action });

async function payments(lease: string): Promise<Payment[]> {
  const rows: Payment[] = [];
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<typeof l.payments>> = await l.payments(
      `lease=${lease}&page_size=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    rows.push(...(page.data?.results ?? []));
    cursor = page.data?.next_cursor ?? null;
  } while (cursor);
  return rows;
}

/** The statement by month: receipts and their fees by booked_on's month, reversals by bounced_on's. */
function statement(rows: Payment[]): Totals {
  const totals: Totals = {};
  const month = (day: string) => {
    const key = day.slice(0, 7);
    totals[key] ??= { received: '0', fees: '0', reversed: '0' };
    return totals[key];
  };
  for (const row of rows) {
    if (row.booked_on) {
      const m = month(row.booked_on);
      m.received = new Big(m.received).plus(row.amount).toString();
      m.fees = new Big(m.fees).plus(row.fee_amount ?? '0').toString();
    }
    if (row.bounced_on) {
      const m = month(row.bounced_on);
      m.reversed = new Big(m.reversed).plus(row.amount).toString();
    }
  }
  return totals;
}

async function apply(lease: string, payments: Payment[], act: Action) {
  const rows = payments.toSorted((a, b) => a.due_on.localeCompare(b.due_on) || a.payment_id.localeCompare(b.payment_id));
  const target = 'pick' in act ? rows[act.pick % rows.length] : undefined;
  if (act.kind === 'fee') return l.patch(lease, { fee: { kind: 'percent', value: String(act.percent) } });
  if (!target) return;
  if (act.kind === 'replace') {
    return l.replace({ replaces: target.payment_id, due_on: '2027-03-01', amount: String(act.amount) });
  }
  if (act.kind === 'edit') {
    return l.changePayment(target.payment_id, { amount: String(act.amount), due_on: plusDays('2027-02-01', act.shift) });
  }
  return l.changePayment(target.payment_id, { status: act.kind });
}

describe('the owner’s statement by month', () => {
  it('never changes for a month already over, whatever happens afterwards', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
        const lease = (await l.draft({ schedule: { payments: 6 }, fee: { kind: 'percent', value: '5' } })).reference;
        let today = '2027-01-01';
        const closed: Totals = {};
        for (const { days, action: act } of steps) {
          today = plusDays(today, days);
          // Noon in Dubai: the company's day is `today`.
          w.api.clock.set(new Date(`${today}T08:00:00Z`));
          const answer = await apply(lease, await payments(lease), act);
          if (answer) expect(answer.response.status, JSON.stringify(answer.error)).toBeLessThan(500);
          const now = statement(await payments(lease));
          const shown = (month: string) => now[month] ?? { received: '0', fees: '0', reversed: '0' };
          for (const [month, totals] of Object.entries(closed)) {
            expect(shown(month), `${month} after ${JSON.stringify(act)}`).toEqual(totals);
          }
          // Every month before today's is over, also one in which nothing happened.
          for (let month = '2027-01-01'; month.slice(0, 7) < today.slice(0, 7); month = plusMonths(month, 1)) {
            closed[month.slice(0, 7)] ??= shown(month.slice(0, 7));
          }
        }
        // The accounting export's filters give the same months.
        for (const [month, totals] of Object.entries(closed)) {
          const first = `${month}-01`;
          const last = plusDays(plusMonths(first, 1), -1);
          const booked =
            (await l.payments(`lease=${lease}&booked_from=${first}&booked_to=${last}&page_size=100`)).data?.results ?? [];
          const sum = (list: Payment[]) => list.reduce((a, p) => a.plus(p.amount), new Big(0)).toString();
          expect(sum(booked)).toBe(totals.received);
        }
      }),
      {
        numRuns: 20,
        // January's payment received in February, bounced in March and replaced; another received in April.
        examples: [
          [
            [
              { days: 40, action: { kind: 'received', pick: 0 } },
              { days: 30, action: { kind: 'bounced', pick: 0 } },
              { days: 1, action: { kind: 'replace', pick: 0, amount: 25_000 } },
              { days: 31, action: { kind: 'fee', percent: 10 } },
              { days: 0, action: { kind: 'received', pick: 1 } },
            ],
          ],
        ],
      },
    );
    w.api.clock.set(null);
  }, 240_000);
});

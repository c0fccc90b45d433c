import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plusDays, plusMonths } from '../leases/support';
import { type StatementWorld, statementWorld } from './support';

/**
 * "A month that is over never changes": random sequences of every write the spec allows, days apart, through the API —
 * receipts, bounces (before and after a receipt), cancellations, replacements, edits of payments still due, fee
 * changes, a draft lease's landlord and home changed after one of its payments was received, an ended lease, owners'
 * and renters' charges and their cancellations, and the erasure of the owner or the renter. After every step each
 * month already over (hence each closed one) shows the same statement lines and totals for both owners, and the same
 * journal, as when it ended. Each run has its own years, owners and leases.
 */
let w: StatementWorld;
beforeAll(async () => {
  w = await statementWorld();
});
afterAll(async () => {
  w.api.clock.set(null);
  await w.api.close();
});

const action = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constantFrom('received', 'bounced', 'cancelled'), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('replace' as const), pick: fc.nat(), amount: fc.integer({ min: 1, max: 40_000 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('edit' as const),
      pick: fc.nat(),
      amount: fc.integer({ min: 0, max: 40_000 }),
      shift: fc.integer({ min: -20, max: 20 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('fee' as const), lease: fc.nat(), percent: fc.integer({ min: 0, max: 100 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('landlord' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('home' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('end' as const) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('charge' as const),
      cost: fc.integer({ min: 1, max: 5_000 }),
      renter: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel_charge' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('erase' as const), owner: fc.boolean() }) },
);
type Action = typeof action extends fc.Arbitrary<infer T> ? T : never;
const step = fc.record({ days: fc.integer({ min: 0, max: 40 }), action });

type Run = {
  owners: [string, string];
  renter: string;
  draft: { reference: string; payments: string[] };
  active: { reference: string; payments: string[] };
  job: string;
  charges: string[];
  homes: string[];
};

let runs = 0;
/** Journal entries of months over that the runs compared: the property looked at real lines. */
let linesSeen = 0;

async function setUp(year: number): Promise<Run> {
  w.on(`${year}-01-01`);
  const owners: [string, string] = [await w.person(`Owner A ${year}`), await w.person(`Owner B ${year}`)];
  const renter = await w.person(`Renter ${year}`);
  const term = { start: `${year}-01-01`, end: `${year}-12-31` };
  const draft = await w.lease(owners[0], 'burj-vista-2br-fountain-view', { renter, term, schedule: { payments: 6 } }, false);
  const active = await w.lease(owners[1], 'al-reem-3br-sea-view', { renter, term, schedule: { payments: 6 } });
  const job = await w.job('al-reem-3br-sea-view');
  return { owners, renter, draft, active, job, charges: [], homes: ['burj-vista-2br-fountain-view', 'jvc-2br-townhouse'] };
}

async function apply(run: Run, act: Action, today: string) {
  const payments = [...run.draft.payments, ...run.active.payments];
  const target = 'pick' in act ? payments[act.pick % payments.length] : undefined;
  switch (act.kind) {
    case 'received':
    case 'bounced':
    case 'cancelled':
      return w.changePayment(String(target), { status: act.kind });
    case 'replace': {
      const res = await w.replacePayment({ replaces: target, due_on: plusDays(today, 10), amount: String(act.amount) });
      if (res.response.status === 201 && res.data)
        (target && run.draft.payments.includes(target) ? run.draft : run.active).payments.push(res.data.payment_id);
      return res;
    }
    case 'edit':
      return w.changePayment(String(target), { amount: String(act.amount), due_on: plusDays(today, act.shift) });
    case 'fee': {
      const lease = act.lease % 2 === 0 ? run.draft : run.active;
      return w.changeLease(lease.reference, { fee: { kind: 'percent', value: String(act.percent) } });
    }
    case 'landlord':
      // A draft's landlord may change after one of its payments was received: the receipt stays the first owner's.
      run.owners.reverse();
      return w.changeLease(run.draft.reference, { landlord: run.owners[0] });
    case 'home':
      run.homes.reverse();
      return w.changeLease(run.draft.reference, { home: run.homes[0] });
    case 'end':
      return w.endLease(run.active.reference, { ended_on: today, deposit: { outcome: 'returned' } });
    case 'charge': {
      const res = await w.postCharge({ job: run.job, cost: String(act.cost), payer: act.renter ? 'renter' : 'owner' });
      if (res.response.status === 201 && res.data) run.charges.push(res.data.charge_id);
      return res;
    }
    case 'cancel_charge': {
      const charge = run.charges[act.pick % Math.max(run.charges.length, 1)];
      return charge ? w.changeCharge(charge, { status: 'cancelled' }) : undefined;
    }
    case 'erase': {
      const person = act.owner ? run.owners[1] : run.renter;
      return w.erase(String(person));
    }
  }
}

/** What must never change of a month once it is over: both owners' lines and totals, and the journal. */
async function monthShown(owners: string[], month: string) {
  const statements = [];
  for (const owner of owners) {
    const { lines, totals, month: shown, owner: who } = await w.statement(owner, month);
    statements.push({ who, shown, lines, totals });
  }
  const journal = await w.journal(month);
  return { statements, entries: journal.entries, totals: journal.totals };
}

describe('a month that is over', () => {
  it('keeps its statements and journal whatever the API allows afterwards', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const year = 2030 + runs++;
        const run = await setUp(year);
        const owners = [...run.owners];
        const over = new Map<string, Awaited<ReturnType<typeof monthShown>>>();
        let today = `${year}-01-01`;
        try {
          for (const { days, action: act } of steps) {
            today = plusDays(today, days);
            w.on(today);
            // Every month before today's is over, also one in which nothing happened: seen before today's write.
            for (let first = `${year}-01-01`; first.slice(0, 7) < today.slice(0, 7); first = plusMonths(first, 1)) {
              const month = first.slice(0, 7);
              if (!over.has(month)) over.set(month, await monthShown(owners, month));
            }
            const answer = await apply(run, act, today);
            if (answer)
              expect(answer.response.status, `${JSON.stringify(act)}: ${JSON.stringify(answer.error)}`).toBeLessThan(500);
            for (const [month, shown] of over) {
              expect(await monthShown(owners, month), `${month} after ${JSON.stringify(act)} on ${today}`).toEqual(shown);
            }
          }
          linesSeen += [...over.values()].reduce((n, shown) => n + shown.entries.length, 0);
          // The months that are closed by now say so, and their journals balance.
          for (const [month] of over) {
            const journal = await w.journal(month);
            for (const totals of journal.totals) expect(totals.debit).toBe(totals.credit);
            if (month < plusDays(today, -5).slice(0, 7)) expect(journal.status).toBe('closed');
          }
        } finally {
          // The next run activates a lease of the same home.
          await w.endLease(run.active.reference, { ended_on: today, deposit: { outcome: 'returned' } });
        }
      }),
      {
        numRuns: 15,
        examples: [
          [
            [
              // January's payment of the draft received in January, its landlord and home changed in February, the
              // payment bounced in March and replaced; a charge in February cancelled in April; the owner erased.
              { days: 3, action: { kind: 'received', pick: 0 } },
              { days: 2, action: { kind: 'charge', cost: 450, renter: false } },
              { days: 30, action: { kind: 'landlord' } },
              { days: 0, action: { kind: 'home' } },
              { days: 30, action: { kind: 'bounced', pick: 0 } },
              { days: 0, action: { kind: 'replace', pick: 0, amount: 25_000 } },
              { days: 0, action: { kind: 'fee', lease: 0, percent: 10 } },
              { days: 31, action: { kind: 'cancel_charge', pick: 0 } },
              { days: 1, action: { kind: 'erase', owner: true } },
              { days: 30, action: { kind: 'end' } },
            ],
          ],
        ],
      },
    );
    expect(linesSeen).toBeGreaterThan(0);
  }, 600_000);
});

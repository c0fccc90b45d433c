import pg from 'pg';
import { addDays } from '../lib/dates';

/**
 * The lease routes' inputs for `npm run bench` (PostgreSQL): a new lease per `POST /leases` (12 post-dated cheques, its
 * own external id, as bench/leases.ts sends it), and `PATCH /rent-payments/{id}` `received` on the due payments of
 * leases made beforehand, each payment once (a received payment cannot be received again); half of them, the
 * other half left to the baseline's updates.
 */
export type BenchLeases = { lease: () => string; payments: string[] };

/** Leases made before the runs: their 12 payments each are the receipts' (the check, the warm-up and the run). */
const LEASES = 120;
const home = 'jvc-studio-unfurnished';

const firstOfMonth = (day: string, months: number) => {
  const index = Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1 + months;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-01`;
};

export async function benchLeases(origin: string, databaseUrl: string, key: string): Promise<BenchLeases> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const parties = await client.query<{ reference: string; roles: string[] }>(
      'select reference, roles from contacts order by created_at',
    );
    const renter = parties.rows.find((p) => p.roles.includes('tenant'))?.reference;
    const landlord = parties.rows.find((p) => p.roles.includes('landlord'))?.reference;
    if (!renter || !landlord) throw new Error('the demo company has no tenant or landlord');
    const start = firstOfMonth(new Date().toISOString().slice(0, 10), 1);
    let made = 0;
    const lease = () => {
      const i = made++;
      return JSON.stringify({
        home,
        renter,
        landlord,
        term: { start, end: addDays(firstOfMonth(start, 12), -1) },
        rent: { amount: '60000.00', period: 'year' },
        deposit: '3000.00',
        schedule: {
          rows: Array.from({ length: 12 }, (_, k) => ({
            due_on: firstOfMonth(start, k),
            amount: '5000.00',
            cheque: { number: String(i * 100 + k + 1).padStart(8, '0'), bank: 'Emirates NBD' },
          })),
        },
        fee: { kind: 'percent', value: '5' },
        external: { source: 'bench', id: `lease-${process.pid}-${i}` },
      });
    };
    const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` };
    const since = (await client.query<{ now: Date }>('select now()')).rows[0]!.now;
    for (let n = 0; n < LEASES; n++) {
      const res = await fetch(`${origin}/api/v1/leases`, { method: 'POST', headers, body: lease() });
      if (res.status !== 201) throw new Error(`POST /api/v1/leases answered ${res.status}: ${await res.text()}`);
    }
    const due = await client.query<{ id: string }>(
      `select id from rent_payments where status = 'due' and created_at >= $1 order by id`,
      [since],
    );
    // The first half by id: the other half is its baseline's (bench/write-baselines.ts takes the last rows by key).
    return { lease, payments: due.rows.slice(0, Math.floor(due.rows.length / 2)).map((r) => r.id) };
  } finally {
    await client.end();
  }
}

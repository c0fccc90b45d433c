import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../functions/seed';
import { testClient } from '../support/client';
import { createTestApi, type TestApi } from '../support/harness';
import { plusDays } from './support';
import { createKey } from '../support/world';
import { checkPintAeRules } from '../support/pint-ae';

/** `npm start`'s demo company (functions/seed.ts), read as an accounting tool would: a server key on localhost. */
type Row = { payment_id: string; due_on: string; status: string; cheque: { number: string; bank: string } | null };
type Lease = {
  reference: string;
  status: string;
  home: string;
  term: { start: string; end: string };
  notice: { given: unknown[] };
  deposit: { outcome: string | null; deductions: string | null };
  renewal: { renews: string | null; renewed_by: string | null };
  schedule: { payments: number | null; rows: Row[] };
};
type Payment = {
  payment_id: string;
  lease: string;
  status: string;
  due_on: string;
  replaces: string | null;
  booked_on: string | null;
  bounced_on: string | null;
  fee_amount: string | null;
  cheque: { number: string; bank: string } | null;
};

// Time is an input: the seed dates everything around this instant (2027-03-17 in Dubai).
const now = new Date('2027-03-17T06:00:00Z');
const today = '2027-03-17';

let api: TestApi;
let leases: Lease[];
let payments: Payment[];
let companyId: string;
beforeAll(async () => {
  // The seed keys the demo company on the host localhost: on PostgreSQL, a database of this file alone.
  api = await createTestApi({ ownDatabase: true });
  const seeded = await seedDemo(api.db, now);
  expect(seeded.seeded).toBe(true);
  companyId = seeded.companyId;
  const key = (await createKey(api, companyId, { scopes: ['read:leases'] })).secret;
  const client = testClient(api, { host: 'localhost', serverKey: key });
  const all = <T>(
    path: string,
    res: { data?: { results: unknown[]; next_cursor: string | null }; error?: unknown; response: Response },
  ) => {
    if (res.response.status !== 200 || !res.data) throw new Error(`${path}: ${res.response.status} ${JSON.stringify(res.error)}`);
    expect(res.data.next_cursor).toBeNull();
    return res.data.results as T[];
  };
  const query = { params: { query: { page_size: 100 } } };
  leases = all<Lease>('/leases', await client.GET('/api/v1/leases', query));
  payments = all<Payment>('/rent-payments', await client.GET('/api/v1/rent-payments', query));
}, 60_000);
afterAll(() => api.close());

const byStatus = (status: string) => leases.filter((l) => l.status === status);

describe('the demo company’s leases (npm start)', () => {
  it('has leases in every state: drafts, active leases and an ended one', () => {
    expect(new Set(leases.map((l) => l.status))).toEqual(new Set(['draft', 'active', 'ended']));
    // Two active leases, each of its own home (the database allows no other way).
    expect(new Set(byStatus('active').map((l) => l.home)).size).toBe(byStatus('active').length);
    expect(byStatus('active').length).toBeGreaterThanOrEqual(2);
  });

  it('has a draft of equal payments and a lease paid by 12 post-dated cheques, each with its number and bank', () => {
    expect(byStatus('draft').some((l) => l.schedule.payments === 4 && l.schedule.rows.length === 4)).toBe(true);
    const cheques = leases.filter((l) => l.schedule.payments === null && l.schedule.rows.every((r) => r.cheque !== null));
    // The schedule as written (a replacement cheque is listed with the lease's rows, but replaces one of them).
    const written = (l: Lease) => payments.filter((p) => p.lease === l.reference && p.replaces === null).length;
    expect(cheques.map(written)).toContain(12);
    for (const lease of cheques) {
      const numbers = lease.schedule.rows.map((r) => r.cheque!.number);
      expect(new Set(numbers).size).toBe(numbers.length);
    }
  });

  it('has payments received on their due day before today, one bounced after its receipt and its replacement', () => {
    const received = payments.filter((p) => p.status === 'received');
    expect(received.length).toBeGreaterThan(0);
    for (const p of received) {
      expect(p.booked_on).toBe(p.due_on);
      expect(p.booked_on! < today).toBe(true);
      expect(p.fee_amount).not.toBeNull();
    }
    const bounced = payments.filter((p) => p.status === 'bounced');
    expect(bounced).toHaveLength(1);
    const [bounce] = bounced as [Payment];
    expect(bounce.booked_on).not.toBeNull();
    expect(bounce.bounced_on! > bounce.booked_on!).toBe(true);
    const replacements = payments.filter((p) => p.replaces !== null);
    expect(replacements.map((p) => p.replaces)).toEqual([bounce.payment_id]);
    expect(replacements[0]!.lease).toBe(bounce.lease);
    expect(replacements[0]!.cheque).not.toBeNull();
    // What is still due is due today or later, or is the lease's next cheque.
    const due = payments.filter((p) => p.status === 'due' && leases.find((l) => l.reference === p.lease)!.status !== 'draft');
    expect(due.length).toBeGreaterThan(0);
    for (const p of due) expect(p.due_on >= today).toBe(true);
  });

  it('has an active lease with a notice given, and an ended lease (deposit returned with deductions) with its renewal draft', () => {
    expect(byStatus('active').some((l) => l.notice.given.length > 0)).toBe(true);
    const [ended] = byStatus('ended') as [Lease];
    expect(ended.deposit.outcome).toBe('returned_with_deductions');
    expect(ended.deposit.deductions).not.toBeNull();
    const renewal = leases.find((l) => l.reference === ended.renewal.renewed_by);
    expect(renewal).toMatchObject({ status: 'draft', home: ended.home, renewal: { renews: ended.reference } });
    // Every payment of the ended lease was settled, none left due.
    expect(ended.schedule.rows.every((r) => r.status === 'received')).toBe(true);
  });

  it('dates the demo around now: a lease runs across today, and the draft starts after it', () => {
    for (const { term } of byStatus('active')) expect(term.start <= today && today <= term.end).toBe(true);
    for (const { term } of byStatus('ended')) expect(term.end < today && term.end >= plusDays(today, -60)).toBe(true);
    expect(byStatus('draft').some((l) => l.term.start > today && l.renewal.renews === null)).toBe(true);
  });

  it('is registered for VAT: its office’s receipts have tax invoices, its bounced cheque a credit note (GET /invoices)', async () => {
    const key = (await createKey(api, companyId, { scopes: ['read:invoices'] })).secret;
    const client = testClient(api, { host: 'localhost', serverKey: key });
    const { data, response } = await client.GET('/api/v1/invoices', { params: { query: { page_size: 100 } } });
    expect(response.status).toBe(200);
    type Listed = { number: string; kind: string; issue_date: string; source: { kind: string } };
    const documents = (data?.results ?? []) as unknown as Listed[];
    const [bounce] = payments.filter((p) => p.status === 'bounced') as [Payment];
    const office = payments.filter((p) => p.lease === bounce.lease && p.booked_on !== null);
    // The rent's documents (the demo's job charges and closed months' fees have theirs: test/maintenance, test/statements).
    const invoices = documents.filter((d) => d.kind === 'invoice' && d.source.kind === 'rent_payment');
    // One invoice per receipt of the office's lease (the bounced one included), none for the residential leases.
    expect(invoices).toHaveLength(office.length);
    expect(invoices.map((d) => d.issue_date).sort()).toEqual(office.map((p) => p.booked_on).sort());
    const credits = documents.filter((d) => d.kind === 'credit_note' && d.source.kind === 'rent_payment');
    expect(credits.map((d) => d.issue_date)).toEqual([bounce.bounced_on]);
    const xml = await api.request(`/api/v1/invoices/${credits[0]!.number}.xml`, { host: 'localhost', key });
    expect(xml.status).toBe(200);
    expect(checkPintAeRules(xml.text)).toEqual([]);
    for (const invoice of invoices) {
      const one = await api.request(`/api/v1/invoices/${invoice.number}.xml`, { host: 'localhost', key });
      expect(checkPintAeRules(one.text)).toEqual([]);
    }
  });

  it('has a holiday-home booking, confirmed and marked paid by staff, with its tax invoice and the journal’s VAT', async () => {
    const key = (await createKey(api, companyId, { scopes: ['read:invoices', 'read:leases'] })).secret;
    const client = testClient(api, { host: 'localhost', serverKey: key });
    const bookings = await api.db.selectFrom('bookings').selectAll().where('company_id', '=', companyId).execute();
    expect(bookings.map((b) => [b.status, b.check_in > today])).toEqual([['paid', true]]);
    const { data } = await client.GET('/api/v1/invoices', { params: { query: { page_size: 100 } } });
    type Listed = {
      number: string;
      kind: string;
      issue_date: string;
      totals: { vat: string; gross: string };
      source: { kind: string; key: string };
    };
    const documents = (data?.results ?? []) as unknown as Listed[];
    const mine = documents.filter((d) => d.source.kind === 'booking_offline');
    expect(mine.map((d) => [d.kind, d.source.key, d.issue_date])).toEqual([['invoice', bookings[0]?.reference, today]]);
    const invoice = mine[0] as Listed;
    expect(Number(invoice.totals.gross)).toBe(Number(bookings[0]?.total) + Number(bookings[0]?.deposit));
    expect(Number(invoice.totals.vat)).toBeGreaterThan(0);
    const xml = await api.request(`/api/v1/invoices/${invoice.number}.xml`, { host: 'localhost', key });
    expect(checkPintAeRules(xml.text)).toEqual([]);
    const journal = await client.GET('/api/v1/exports/journal', { params: { query: { month: today.slice(0, 7) } } });
    type Entry = { kind: string; lines: Array<{ account: string; credit: string }> };
    const entries = ((journal.data as unknown as { entries: Entry[] }).entries ?? []).filter(
      (e) => e.kind === 'booking_paid_offline',
    );
    expect(entries.map((e) => e.lines.find((l) => l.account === 'vat_payable')?.credit)).toEqual([invoice.totals.vat]);
  });

  it('is seeded once: a second start finds the company and writes nothing', async () => {
    const count = async () =>
      (
        await api.db
          .selectFrom('rent_payments')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    const before = await count();
    const again = await seedDemo(api.db, new Date(now.getTime() + 86_400_000));
    expect(again).toEqual({ seeded: false, companyId });
    expect(await count()).toBe(before);
  });
});

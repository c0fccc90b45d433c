import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { companyByHost } from '../../lib/tenancy';
import { holdStay } from '../../functions/stay/hold';
import { quoteOf, stayFacts } from '../../lib/stay/quote';
import type { AdminBody } from '../support/client';
import { createTestApi, type TestApi } from '../support/harness';
import { adminOf } from '../support/world';
import { adminBooking, book, bookingBody, day, newHome, plusDays, postBooking, quote, setup } from './support';

/**
 * Issue 35, amounts with their tax on quotes and bookings (docs/api-reference.md, "Tax", "Amounts with their tax"):
 * each quote line's tax by the rates in force on the check-in day, the totals the sums of the lines, a booking keeping
 * the tax it was quoted. The rate table is the platform's: the file has a database of its own (on the PostgreSQL pass
 * too), puts the table back as migration 0043 seeds it, and sets the services' clock once (time as an input).
 */
const api = {} as TestApi;
beforeAll(async () => {
  Object.assign(
    api,
    await createTestApi({
      ownDatabase: true,
      env: { RATE_LIMIT_PUBLISHABLE_KEY_PER_MINUTE: '100000', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000' },
    }),
  );
  await seededRates();
  api.clock.set(new Date());
});
afterAll(() => api.close?.());

const trn = '100123456700003';

/** The rate table as migration 0043 seeds it: the UAE's standard 5 % and zero 0 %, open, from 2018-01-01. */
async function seededRates() {
  await sql`delete from tax_rates where valid_from <> '2018-01-01'`.execute(api.db);
  await sql`update tax_rates set valid_to = null where valid_from = '2018-01-01'`.execute(api.db);
}

const admin = () => adminOf(api);
const standardRate = async () => (await admin().GET('/admin/v1/tax-rates')).data!.results.find((r) => r.category === 'standard')!;
/** The open standard rate closed on `lastDay`, and (unless null) a new standard rate from the day after. */
async function newStandardRate(lastDay: string, rate: string | null) {
  const open = await standardRate();
  const closed = await admin().PATCH('/admin/v1/tax-rates/{rate_id}', {
    params: { path: { rate_id: open.id } },
    body: { valid_to: lastDay } as AdminBody<'closeTaxRate'>,
  });
  expect(closed.response.status, JSON.stringify(closed.error)).toBe(200);
  if (rate === null) return;
  const added = await admin().POST('/admin/v1/tax-rates', {
    body: { category: 'standard', rate, valid_from: plusDays(lastDay, 1) } as AdminBody<'createTaxRate'>,
  });
  expect(added.response.status, JSON.stringify(added.error)).toBe(201);
}

/**
 * The VAT in a VAT-inclusive amount, worked apart from lib/money.ts: in minor units with integers, gross × p / (100q + p)
 * for a rate p/q, rounded half up; as a decimal string of `digits` places.
 */
function vatOracle(gross: string, rate: string, digits: number): string {
  const minor = BigInt(gross.replace('.', ''));
  const [whole, fraction = ''] = rate.split('.');
  const q = 10n ** BigInt(fraction.length);
  const p = BigInt(whole + fraction);
  const d = 100n * q + p;
  const vat = (2n * minor * p + d) / (2n * d);
  const text = vat.toString().padStart(digits + 1, '0');
  return digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** Sums decimal strings of `digits` places exactly (integers of minor units). */
function sum(amounts: string[], digits: number): string {
  const total = amounts.reduce((t, a) => t + BigInt(a.replace('.', '')), 0n);
  const text = total.toString().padStart(digits + 1, '0');
  return `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

type Line = { category: string; rate: string | null; net: string; vat: string };
type Quoted = {
  nights: Array<{ price: string; tax: Line }>;
  fees: Array<{ code: string; amount: string; tax: Line }>;
  total: string;
  tax: { net: string; vat: string };
  deposit: string;
  deposit_tax: Line;
};

/** Every line's VAT as the oracle has it, its net the rest; the totals the sums of the nights' and fees' lines. */
function expectTaxed(q: Quoted, digits: number, rates: { stay: string | null; tourism?: string | null }) {
  const check = (amount: string, tax: Line, category: string, rate: string | null) => {
    const vat = rate === null ? sum(['0'], digits) : vatOracle(amount, rate, digits);
    expect(tax).toEqual({
      category,
      rate,
      net: sum(
        [amount, `-${vat}`].map((a) => a),
        digits,
      ),
      vat,
    });
  };
  for (const night of q.nights) check(night.price, night.tax, rates.stay === null ? 'exempt' : 'standard', rates.stay);
  for (const fee of q.fees) {
    if (fee.code === 'cleaning') check(fee.amount, fee.tax, rates.stay === null ? 'exempt' : 'standard', rates.stay);
    else check(fee.amount, fee.tax, 'out_of_scope', null);
  }
  check(q.deposit, q.deposit_tax, 'out_of_scope', null);
  const lines = [...q.nights.map((n) => n.tax), ...q.fees.map((f) => f.tax)];
  expect(q.tax).toEqual({
    net: sum(
      lines.map((l) => l.net),
      digits,
    ),
    vat: sum(
      lines.map((l) => l.vat),
      digits,
    ),
  });
  expect(sum([q.tax.net, q.tax.vat], digits)).toBe(q.total);
}

describe('a quote’s tax', () => {
  beforeEach(seededRates);

  it('splits every line of an AED quote at 5 %, the Tourism Dirham and the deposit out of scope, totals to the fils', async () => {
    const ctx = await setup({ api, settings: { trn } });
    const home = await newHome(ctx, {
      price: '333.33',
      bedrooms: 3,
      terms: {
        weekend_price: '1000.01',
        cleaning_fee: '99.99',
        tourism_fee_per_bedroom_night: '15.00',
        deposit: '3000.00',
      },
    });
    const res = await quote(ctx, home, day(10), day(17));
    expect(res.status, res.text).toBe(200);
    const q = res.json as Quoted;
    expectTaxed(q, 2, { stay: '5' });
    // Worked by hand: 333.33 × 5 / 105 = 15.8728… → 15.87; 99.99 × 5 / 105 = 4.7614… → 4.76.
    expect(q.nights.find((n) => n.price === '333.33')?.tax).toEqual({
      category: 'standard',
      rate: '5',
      net: '317.46',
      vat: '15.87',
    });
    expect(q.fees[0]).toEqual({
      code: 'cleaning',
      amount: '99.99',
      tax: { category: 'standard', rate: '5', net: '95.23', vat: '4.76' },
    });
    expect(q.fees[1]?.tax).toEqual({ category: 'out_of_scope', rate: null, net: '315.00', vat: '0.00' });
    expect(q.deposit_tax).toEqual({ category: 'out_of_scope', rate: null, net: '3000.00', vat: '0.00' });
  });

  it('splits a KWD quote to the fils (three digits), its totals the sums of its lines', async () => {
    const ctx = await setup({ api, settings: { trn }, overrides: { currency: 'KWD' } });
    const home = await newHome(ctx, {
      price: '35.125',
      bedrooms: 2,
      terms: { weekend_price: '41.333', cleaning_fee: '5.250', tourism_fee_per_bedroom_night: '0.125', deposit: '50.5' },
    });
    const res = await quote(ctx, home, day(10), day(19));
    expect(res.status, res.text).toBe(200);
    const q = res.json as Quoted;
    expectTaxed(q, 3, { stay: '5' });
    // 35.125 × 5 / 105 = 1.67261… → 1.673.
    expect(q.nights.find((n) => n.price === '35.125')?.tax).toEqual({
      category: 'standard',
      rate: '5',
      net: '33.452',
      vat: '1.673',
    });
    expect(q.deposit_tax).toEqual({ category: 'out_of_scope', rate: null, net: '50.500', vat: '0.000' });
  });

  it('applies the listing’s own category (exempt) to the nights and the cleaning fee', async () => {
    const ctx = await setup({ api, settings: { trn } });
    const home = await newHome(ctx, {
      price: '500.00',
      terms: { cleaning_fee: '100.00', tourism_fee_per_bedroom_night: '10.00' },
      listing: { tax_category: 'exempt' },
    });
    const q = (await quote(ctx, home, day(10), day(12))).json as Quoted;
    expectTaxed(q, 2, { stay: null });
    expect(q.tax).toEqual({ net: '1140.00', vat: '0.00' });
    // The company's own `stay` category, without the listing's: standard.
    const plain = await newHome(ctx, { price: '500.00' });
    expect(((await quote(ctx, plain, day(10), day(12))).json as Quoted).tax).toEqual({ net: '952.38', vat: '47.62' });
  });

  it('charges no VAT for a company without a TRN (not registered), nor before its registration day', async () => {
    const none = await setup({ api });
    const home = await newHome(none, { price: '210.00', terms: { cleaning_fee: '21.00' } });
    const q = (await quote(none, home, day(10), day(12))).json as Quoted;
    expect(q.nights[0]?.tax).toEqual({ category: 'out_of_scope', rate: null, net: '210.00', vat: '0.00' });
    expect(q.fees[0]?.tax).toEqual({ category: 'out_of_scope', rate: null, net: '21.00', vat: '0.00' });
    expect(q.tax).toEqual({ net: '441.00', vat: '0.00' });
    const later = await setup({ api, settings: { trn, vat_registered_on: day(20) } });
    const its = await newHome(later, { price: '210.00' });
    expect(((await quote(later, its, day(18), day(20))).json as Quoted).tax).toEqual({ net: '420.00', vat: '0.00' });
    // A stay starting on the registration day is taxed, every night of it.
    expect(((await quote(later, its, day(20), day(22))).json as Quoted).tax).toEqual({ net: '400.00', vat: '20.00' });
  });

  it('takes a rate added for a future day for stays from that day only, and changes no booking', async () => {
    const ctx = await setup({ api, settings: { trn } });
    const home = await newHome(ctx, { price: '1075.00', terms: { cleaning_fee: '107.50' } });
    const booked = await book(ctx, home, day(40), day(42), { language: 'ar' });
    expect(booked.quote.tax).toEqual({ net: '2150.00', vat: '107.50' });
    await newStandardRate(day(34), '7.5');
    // A stay from the day before: the rate of its check-in day for every night, the last night's day included.
    const before = (await quote(ctx, home, day(33), day(36))).json as Quoted;
    expectTaxed(before, 2, { stay: '5' });
    const from = (await quote(ctx, home, day(35), day(37))).json as Quoted;
    expectTaxed(from, 2, { stay: '7.5' });
    // 1075.00 × 7.5 / 107.5 = 75.00
    expect(from.nights[0]?.tax).toEqual({ category: 'standard', rate: '7.5', net: '1000.00', vat: '75.00' });
    // The booking keeps what it was quoted, also once the company's settings change.
    await admin().PATCH('/admin/v1/companies/{company_id}', {
      params: { path: { company_id: ctx.company.id } },
      body: { settings: { trn: null } } as never,
    });
    const kept = await adminBooking(ctx, booked.reference);
    expect(kept.status, kept.text).toBe(200);
    expect(kept.json.tax).toEqual({ net: '2150.00', vat: '107.50' });
    expect(kept.json.quote.nights[0].tax).toEqual({ category: 'standard', rate: '5', net: '1023.81', vat: '51.19' });
    const { listing: _l, check_in: _i, check_out: _o, guests: _g, ...asQuoted } = booked.quote;
    expect(kept.json.quote).toEqual(asQuoted);
    const now = await quote(ctx, home, day(43), day(45));
    expect(now.status, now.text).toBe(200);
    expect(now.json.tax).toEqual({ net: '2257.50', vat: '0.00' });
    // The guest's page shows the VAT of the total as quoted, in the guest's language (here Arabic).
    // raw: the guest's HTML page, a path the API document does not declare
    const page = await api.request(new URL(booked.stay_url).pathname, { host: ctx.company.host });
    expect(page.status).toBe(200);
    expect(page.text).toContain('ضريبة القيمة المضافة المشمولة في المجموع');
    expect(page.text).toMatch(/data-vat>[^<]*107\.50/);
    expect(page.text).toMatch(/data-net>[^<]*2.?150\.00/);
  });

  it('shows the VAT on an English stay page, and none for a company that charges none', async () => {
    const ctx = await setup({ api, settings: { trn } });
    const home = await newHome(ctx, { price: '210.00' });
    const booked = await book(ctx, home, day(50), day(51));
    // raw: the guest's HTML page, a path the API document does not declare
    const page = await api.request(new URL(booked.stay_url).pathname, { host: ctx.company.host });
    expect(page.text).toContain('<td>VAT included in the total</td><td></td><td class="amount" data-vat>AED\u00a010.00</td>');
    expect(page.text).toContain('<td class="amount" data-net>AED\u00a0200.00</td>');
    const none = await setup({ api });
    const its = await newHome(none, { price: '210.00' });
    const untaxed = await book(none, its, day(50), day(51));
    // raw: the guest's HTML page, a path the API document does not declare
    const plain = await api.request(new URL(untaxed.stay_url).pathname, { host: none.company.host });
    expect(plain.status).toBe(200);
    expect(plain.text).not.toContain('data-vat');
  });

  it('refuses a quote and a booking, 409, when no rate is in force on the check-in day, writing nothing', async () => {
    const ctx = await setup({ api, settings: { trn } });
    const home = await newHome(ctx, { price: '100.00' });
    await newStandardRate(day(60), null);
    const res = await quote(ctx, home, day(61), day(63));
    expect(res.status, res.text).toBe(409);
    expect(res.json.code).toBe('conflict');
    const sent = await postBooking(ctx, bookingBody(home, day(61), day(63)));
    expect(sent.status, sent.text).toBe(409);
    const count = await api.db
      .selectFrom('bookings')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('company_id', '=', ctx.company.id)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
    // The day before is still taxed; an exempt home takes no rate.
    expect((await quote(ctx, home, day(60), day(62))).status).toBe(200);
    const exempt = await newHome(ctx, { price: '100.00', listing: { tax_category: 'exempt' } });
    expect((await quote(ctx, exempt, day(61), day(63))).status).toBe(200);
  });

  it('writes no hold whose quote read a rate that no longer holds its check-in day', async () => {
    const ctx = await setup({ api, settings: { trn } });
    const home = await newHome(ctx, { price: '100.00' });
    const company = (await companyByHost(api.db, ctx.company.host))!;
    const now = api.clock.now();
    const stay = { checkIn: day(70), checkOut: day(72), guests: 2 };
    const facts = await stayFacts(api.db, company, home, stay, now);
    const quoted = quoteOf(company, facts, stay, now);
    expect(quoted.tax).toEqual({ net: '190.48', vat: '9.52' });
    await newStandardRate(day(69), '7.5');
    const guest = {
      ...stay,
      name: 'Layla Guest',
      email: 'layla.tax@example.com',
      consentVersion: '2026-01',
      consentAddress: null,
    };
    expect(await holdStay(api.db, company, facts, quoted, guest, 'website', now)).toBeUndefined();
    // Read again, it holds at the new rate.
    const again = await stayFacts(api.db, company, home, stay, now);
    const requoted = quoteOf(company, again, stay, now);
    expect(requoted.tax).toEqual({ net: '186.04', vat: '13.96' });
    expect(await holdStay(api.db, company, again, requoted, guest, 'website', now)).toBeDefined();
    // Nor one whose listing's category changed since (as a catalogue import sets it; here its column alone, so the
    // home's rules_version stays as read).
    const other = { checkIn: day(74), checkOut: day(75), guests: 2 };
    const read = await stayFacts(api.db, company, home, other, now);
    const standard = quoteOf(company, read, other, now);
    await sql`update listings set tax_category = 'exempt' where slug_en = ${home}`.execute(api.db);
    expect(await holdStay(api.db, company, read, standard, { ...guest, ...other }, 'website', now)).toBeUndefined();
  });
});

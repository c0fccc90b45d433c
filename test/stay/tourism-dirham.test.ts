import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestClient } from '../support/client';
import { demoCompany, homes as demoHomes, useWorld } from '../support/world';
import { bookingsThrough, day, plainTerms, plusDays, type Terms } from './support';

/**
 * Dubai's Tourism Dirham (issue 37; docs/api-reference.md, "The Tourism Dirham"): a home's DET class sets the fee per
 * bedroom and night (standard AED 10, deluxe AED 15), quotes and the stay page show it as its own line outside VAT,
 * bookings keep it, the month's report counts the nights booked (each night in its own month, cancelled and held
 * bookings not), a closed month never changes, and the journal holds it as a liability until it is paid over.
 */
const w = useWorld({ environment: 'development' });
let book: ReturnType<typeof bookingsThrough>['book'];
let reader: TestClient;
let readerKey: string;

/** DET's rates (Executive Council Resolution No. (2) of 2014), written apart from lib/tourism-dirham.ts. */
const rateOf = { standard: 10, deluxe: 15 } as const;

const monthOf = (date: string) => date.slice(0, 7);
const nextMonth = (month: string) => monthOf(plusDays(`${month}-28`, 7));
const lastDay = (month: string) => plusDays(`${nextMonth(month)}-01`, -1);

// The month the stays are in (M), the next (a stay crosses into it) and the one after (when both have closed).
const m = monthOf(day(45));
const m1 = nextMonth(m);
const m2 = nextMonth(m1);

type Home = { slug: string; bedrooms: number; det: 'standard' | 'deluxe' | null; cap: number };
const homes: Record<'deluxe' | 'studio' | 'capped' | 'plain', Home> = {
  deluxe: { slug: '', bedrooms: 3, det: 'deluxe', cap: 30 },
  studio: { slug: '', bedrooms: 0, det: 'standard', cap: 30 },
  capped: { slug: '', bedrooms: 1, det: 'deluxe', cap: 2 },
  plain: { slug: '', bedrooms: 2, det: null, cap: 30 },
};
const newHome = (home: Home) =>
  w.holidayHome(
    {
      ...plainTerms,
      det_class: home.det,
      tourism_fee_max_nights: home.cap,
      tourism_fee_per_bedroom_night: home.det === null ? '7.00' : '0',
    } satisfies Partial<Terms> & Record<string, unknown>,
    { status: 'published', price: '400.00', bedrooms: home.bedrooms, max_guests: 6 },
  );

type Stay = { home: Home; check_in: string; check_out: string; reference: string; stay_url: string; kept: boolean };
const booked: Stay[] = [];

async function stayOf(home: Home, checkIn: string, checkOut: string, then: 'confirm' | 'cancel' | 'hold') {
  const data = (await book(home.slug, checkIn, checkOut)) as { reference: string; stay_url: string };
  if (then !== 'hold') await admin(`/bookings/${data.reference}/confirm`, undefined, 'POST');
  // A kept stay is paid (staff mark it): a confirmed one left unpaid lapses once its payment window runs out.
  if (then === 'confirm') await admin(`/bookings/${data.reference}/mark-paid`, undefined, 'POST');
  if (then === 'cancel') await admin(`/bookings/${data.reference}/cancel`, undefined, 'POST');
  const stay = { home, check_in: checkIn, check_out: checkOut, ...data, kept: then === 'confirm' };
  booked.push(stay);
  return stay;
}

async function admin(path: string, body?: unknown, method?: string) {
  const res = await w.admin(path, body, method);
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res;
}

/** The month's report as a server key with `read:leases` reads it. */
const report = async (month: string) => {
  // raw: a route added by this branch, not yet in the checked-in OpenAPI document the typed clients are made from
  const res = await w.api.request(`/api/v1/tourism-dirham?month=${month}`, { host: w.company.host, key: readerKey });
  expect(res.status, res.text).toBe(200);
  return res.json;
};

const journal = async (month: string) => {
  const res = await reader.GET('/api/v1/exports/journal', { params: { query: { month } } });
  expect(res.response.status, JSON.stringify(res.error)).toBe(200);
  return res.data as Journal;
};
type Line = { account: string; debit: string; credit: string };
type Journal = {
  entries: Array<{ kind: string; day: string; lines: Line[] }>;
  totals: Array<{ accounts: Array<{ account: string; debit: string; credit: string }> }>;
};

/** The report a month should give, computed here from the stays booked: the nights charged that fall in it. */
function expected(month: string) {
  const lines = new Map<string, { nights: number; bookings: Set<string>; home: Home }>();
  for (const stay of booked.filter((s) => s.kept && s.home.det !== null)) {
    for (let night = stay.check_in, n = 0; night < stay.check_out && n < stay.home.cap; night = plusDays(night, 1), n++) {
      if (monthOf(night) !== month) continue;
      const line = lines.get(stay.home.slug) ?? { nights: 0, bookings: new Set<string>(), home: stay.home };
      line.nights += 1;
      line.bookings.add(stay.reference);
      lines.set(stay.home.slug, line);
    }
  }
  const homesOf = [...lines.values()]
    .sort((a, b) => (a.home.slug < b.home.slug ? -1 : 1))
    .map(({ nights, bookings, home }) => {
      const bedrooms = Math.max(1, home.bedrooms);
      const rate = rateOf[home.det as 'standard' | 'deluxe'];
      return {
        listing: home.slug,
        det_class: home.det,
        bedrooms,
        per_bedroom_night: `${rate}.00`,
        bookings: bookings.size,
        nights,
        bedroom_nights: nights * bedrooms,
        amount: `${nights * bedrooms * rate}.00`,
      };
    });
  const total = homesOf.reduce((sum, h) => sum + Number.parseInt(h.amount, 10), 0);
  return { homes: homesOf, total: `${total}.00` };
}

const withoutIds = (homesOf: Array<Record<string, unknown>>) => homesOf.map(({ listing_id: _, ...home }) => home);

beforeAll(async () => {
  for (const home of Object.values(homes)) home.slug = await newHome(home);
  ({ book } = bookingsThrough(await w.formClient(['booking'])));
  readerKey = (await w.keyWith(['read:leases'])).secret;
  reader = await w.clientWith(readerKey);
});
afterAll(() => w.api.clock.set(null));

describe('the Tourism Dirham', () => {
  it('quotes it as its own line outside VAT: bedrooms × nights × the class’s rate, a studio one bedroom', async () => {
    const checkIn = day(20);
    const quote = async (home: Home, nights: number) => {
      const res = await w.anonymous.GET('/api/v1/listings/{slug}/quote', {
        params: { path: { slug: home.slug }, query: { check_in: checkIn, check_out: plusDays(checkIn, nights), guests: 2 } },
      });
      expect(res.response.status, JSON.stringify(res.error)).toBe(200);
      return res.data as NonNullable<typeof res.data> & { tourism_dirham?: Record<string, unknown> };
    };
    const deluxe = await quote(homes.deluxe, 4);
    const fee = deluxe.fees.find((f) => f.code === 'tourism_fee');
    expect(fee).toMatchObject({ amount: `${3 * 4 * 15}.00`, tax: { category: 'out_of_scope', vat: '0.00' } });
    expect(deluxe.tourism_dirham).toEqual({
      det_class: 'deluxe',
      bedrooms: 3,
      nights: 4,
      per_bedroom_night: '15.00',
      amount: '180.00',
    });
    // The nights' price and the fee make the total; the fee adds nothing to its VAT.
    expect(deluxe.total).toBe(`${4 * 400 + 180}.00`);
    const studio = await quote(homes.studio, 3);
    expect(studio.tourism_dirham).toMatchObject({ det_class: 'standard', bedrooms: 1, nights: 3, amount: '30.00' });
    const capped = await quote(homes.capped, 5);
    expect(capped.tourism_dirham).toMatchObject({ nights: 2, amount: '30.00' });
    // A home without a class keeps the terms' own fee, and no Tourism Dirham breakdown.
    const plain = await quote(homes.plain, 2);
    expect(plain.tourism_dirham).toBeUndefined();
    expect(plain.fees.find((f) => f.code === 'tourism_fee')?.amount).toBe(`${2 * 2 * 7}.00`);
  });

  it('refuses a class that is not DET’s, at the field, and changes nothing', async () => {
    const res = await w.admin(`/listings/${homes.studio.slug}/booking-terms`, { ...plainTerms, det_class: 'luxury' }, 'PUT');
    expect(res.status).toBe(400);
    expect(res.json.errors.map((e: { path: string }) => e.path)).toContain('det_class');
    const quoted = await w.anonymous.GET('/api/v1/listings/{slug}/quote', {
      params: { path: { slug: homes.studio.slug }, query: { check_in: day(20), check_out: day(21), guests: 2 } },
    });
    expect((quoted.data as { tourism_dirham?: { det_class: string } }).tourism_dirham?.det_class).toBe('standard');
  });

  it('refuses a class on a company whose currency is not AED, at the field', async () => {
    const usd = await demoCompany(w.api, { bookings_enabled: true }, { currency: 'USD' });
    const put = (terms: Record<string, unknown>) =>
      w.api.admin(`/companies/${usd.id}/listings/${demoHomes.holiday}/booking-terms`, {
        method: 'PUT',
        body: { ...plainTerms, ...terms },
      });
    const res = await put({ det_class: 'standard' });
    expect(res.status, res.text).toBe(400);
    expect(res.json.errors.map((e: { path: string }) => e.path)).toEqual(['det_class']);
    expect((await put({ det_class: null })).status).toBe(200);
  });

  it('keeps the fee on the booking and shows it on the stay page as its own line', async () => {
    const stay = await stayOf(homes.deluxe, plusDays(lastDay(m), -1), `${m1}-03`, 'confirm');
    const row = await w.api.db
      .selectFrom('bookings')
      .select('quote')
      .where('reference', '=', stay.reference)
      .executeTakeFirstOrThrow();
    expect(row.quote.tourism_dirham).toEqual({
      det_class: 'deluxe',
      bedrooms: 3,
      nights: 4,
      per_bedroom_night: '15.00',
      amount: '180.00',
    });
    expect(row.quote.fees.find((f) => f.code === 'tourism_fee')?.amount).toBe('180.00');
    // raw: the stay page is HTML at the link the guest was given
    const page = await w.api.request(new URL(stay.stay_url).pathname, { host: w.company.host });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<tr data-tourism-dirham><td>Tourism Dirham, outside VAT \(3 × 4 × [^<]*15\.00/);
  });

  it('reports the month’s nights booked: split by night across months, cancelled and held bookings left out', async () => {
    await stayOf(homes.studio, `${m}-05`, `${m}-08`, 'confirm');
    await stayOf(homes.deluxe, `${m}-10`, `${m}-12`, 'cancel');
    await stayOf(homes.deluxe, `${m}-14`, `${m}-16`, 'hold');
    await stayOf(homes.capped, `${m}-20`, `${m}-25`, 'confirm');
    await stayOf(homes.plain, `${m}-20`, `${m}-23`, 'confirm');
    const open = await report(m);
    expect(open.status).toBe('open');
    expect(open.recorded_at).toBeNull();
    const want = expected(m);
    expect(withoutIds(open.homes)).toEqual(want.homes);
    expect(open.total).toBe(want.total);
    // The deluxe home's stay across the months: 2 nights in each.
    expect(open.homes.find((h: { listing: string }) => h.listing === homes.deluxe.slug)?.nights).toBe(2);
    const after = await report(m1);
    expect(withoutIds(after.homes)).toEqual(expected(m1).homes);
    expect(after.total).toBe('90.00');
  });

  it('never changes a closed month: a later cancellation or change of class leaves its report as recorded', async () => {
    w.api.clock.set(new Date(`${m2}-10T08:00:00Z`));
    const closed = await report(m);
    expect(closed.status).toBe('closed');
    expect(closed.recorded_at).not.toBeNull();
    const want = expected(m);
    expect(withoutIds(closed.homes)).toEqual(want.homes);
    // Later changes: the studio's stay cancelled, the deluxe home classed standard with more bedrooms.
    const studioStay = booked.find((s) => s.home === homes.studio)!;
    await admin(`/bookings/${studioStay.reference}/cancel`, undefined, 'POST');
    await admin(`/listings/${homes.deluxe.slug}/booking-terms`, { ...plainTerms, det_class: 'standard' }, 'PUT');
    const again = await report(m);
    expect(again).toEqual(closed);
    // The database refuses a change of the record itself.
    await expect(
      sql`update tourism_dirham_months set total = total + 1 where company_id = ${w.company.id}::uuid`.execute(w.api.db),
    ).rejects.toThrow(/never changes/);
  });

  it('books the month’s Tourism Dirham as a liability, cleared by its payment over to DET', async () => {
    const closed = await report(m);
    const owed = (await journal(m)).entries.find((e) => e.kind === 'tourism_dirham');
    expect(owed?.day).toBe(lastDay(m));
    expect(owed?.lines.map((l) => [l.account, l.debit, l.credit])).toEqual([
      ['booking_receipts', closed.total, '0.00'],
      ['tourism_dirham_payable', '0.00', closed.total],
    ]);
    // Paying over: refused while a month is open, for a day within the month, and then recorded once.
    const pay = (month: string, body: unknown) => w.admin(`/tourism-dirham/${month}/payment`, body, 'POST');
    expect((await pay(m2, { paid_on: `${m2}-09`, reference: 'DET-1' })).status).toBe(409);
    const early = await pay(m, { paid_on: lastDay(m), reference: 'DET-1' });
    expect(early.status).toBe(400);
    expect(early.json.errors[0].path).toBe('paid_on');
    const paid = await pay(m, { paid_on: `${m2}-09`, reference: 'DET-TD-118' });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.json.payment).toMatchObject({ paid_on: `${m2}-09`, reference: 'DET-TD-118' });
    expect(paid.json.total).toBe(closed.total);
    expect((await pay(m, { paid_on: `${m2}-09`, reference: 'DET-TD-118' })).status).toBe(409);
    const cleared = (await journal(m2)).entries.find((e) => e.kind === 'tourism_dirham_paid');
    expect(cleared?.day).toBe(`${m2}-09`);
    expect(cleared?.lines.map((l) => [l.account, l.debit, l.credit])).toEqual([
      ['tourism_dirham_payable', closed.total, '0.00'],
      ['bank', '0.00', closed.total],
    ]);
    // The liability raised in M is what the payment clears.
    const payable = (data: Journal, side: 'debit' | 'credit') =>
      data.totals[0]?.accounts.find((a) => a.account === 'tourism_dirham_payable')?.[side];
    expect(payable(await journal(m), 'credit')).toBe(payable(await journal(m2), 'debit'));
    // The admin API reads the same month, paid.
    const read = await w.admin(`/tourism-dirham/${m}`);
    expect(read.json.payment.reference).toBe('DET-TD-118');
  });

  it('answers only keys with read:leases, and a bad month with a 400 at the field', async () => {
    const other = (await w.keyWith(['read:listings'])).secret;
    // raw: a route added by this branch, not yet in the checked-in OpenAPI document
    const refused = await w.api.request(`/api/v1/tourism-dirham?month=${m}`, { host: w.company.host, key: other });
    expect(refused.status).toBe(403);
    // raw: as above
    const bad = await w.api.request('/api/v1/tourism-dirham?month=2027-13', { host: w.company.host, key: readerKey });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].path).toBe('month');
  });
});

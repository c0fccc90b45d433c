import { beforeAll, describe, expect, it } from 'vitest';
import { useWorld, type World, world } from '../support/world';
import * as stay from './support';
import { day, nextWeekday, plainTerms, plusDays, studio, type Terms, villa, weekday } from './support';

// A development workspace, as the booking tests use.
const w = useWorld({ environment: 'development' });

type HomeOptions = { price?: string; bedrooms?: number; max_guests?: number; terms?: Partial<Terms> };
/** A new holiday home of `on`'s company: plain terms, 100.00 a night, 2 bedrooms, 6 guests, unless given. */
const newHome = (o: HomeOptions = {}, on: World = w) =>
  on.holidayHome(
    { ...plainTerms, ...o.terms },
    { status: 'published', price: o.price ?? '100.00', bedrooms: o.bedrooms ?? 2, max_guests: o.max_guests ?? 6 },
  );
/** GET /listings/{slug}/quote, as anyone may ask it. */
const quote = (home: string, checkIn: string, checkOut: string, guests = 2, on: World = w) =>
  on.anonymous.GET('/api/v1/listings/{slug}/quote', {
    params: { path: { slug: home }, query: { check_in: checkIn, check_out: checkOut, guests } },
  });
/** Codes of a problem's `errors`. */
const codes = (res: { error?: { errors?: Array<{ code: string }> } }) => (res.error?.errors ?? []).map((e) => e.code);
const addBlock = (home: string, startsOn: string, endsOn: string) => stay.addBlock(w, home, startsOn, endsOn);

/** The tax of an amount of a company that charges no VAT (AED). */
const untaxed = (net: string) => ({ category: 'out_of_scope', rate: null, net, vat: '0.00' });
/** A quote's lines without their tax (checked in test/stay/tax.test.ts). */
const withoutTax = <T extends { tax?: unknown }>(lines: T[] | undefined) => lines?.map(({ tax: _, ...line }) => line);

const dates = (from: string, nights: number) => Array.from({ length: nights }, (_, i) => plusDays(from, i));

describe('prices', () => {
  it('adds many small prices exactly: 30 nights at 0.10, fees and deposit as exact decimal strings', async () => {
    const home = await newHome({
      price: '0.10',
      bedrooms: 3,
      terms: { cleaning_fee: '0.20', tourism_fee_per_bedroom_night: '0.10', deposit: '0.30', tourism_fee_max_nights: 30 },
    });
    const checkIn = day(10);
    const res = await quote(home, checkIn, plusDays(checkIn, 30));
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.response.headers.get('Cache-Control')).toBe('no-store');
    expect(res.data).toEqual({
      listing: home,
      check_in: checkIn,
      check_out: plusDays(checkIn, 30),
      guests: 2,
      currency: 'AED',
      // The world's company has no TRN: it charges no VAT, so every line is out of scope (issue 35; test/stay/tax.test.ts).
      nights: dates(checkIn, 30).map((date) => ({ date, rate: 'base', price: '0.10', tax: untaxed('0.10') })),
      subtotal: '3.00',
      fees: [
        { code: 'cleaning', amount: '0.20', tax: untaxed('0.20') },
        { code: 'tourism_fee', amount: '9.00', tax: untaxed('9.00') },
      ],
      total: '12.20',
      tax: { net: '12.20', vat: '0.00' },
      deposit: '0.30',
      deposit_tax: untaxed('0.30'),
    });
    const one = await quote(home, checkIn, plusDays(checkIn, 1));
    expect([one.data?.subtotal, one.data?.total]).toEqual(['0.10', '0.60']);
  });

  it('keeps large amounts exact', async () => {
    const home = await newHome({ price: '123456789.01', terms: { cleaning_fee: '0.99' } });
    const res = await quote(home, day(10), day(100));
    expect(res.data?.subtotal).toBe('11111111010.90');
    expect(res.data?.total).toBe('11111111011.89');
  });

  it('prices each night at the base, weekend or season rate; weekend nights by weekday with 0 = Monday', async () => {
    const monday = nextWeekday(0, 10);
    const home = await newHome({
      price: '100.00',
      terms: {
        weekend_nights: [0, 4], // Monday and Friday nights
        weekend_price: '150.00',
        seasons: [
          // the second week: a season with its own weekend price
          {
            name: 'High',
            starts_on: plusDays(monday, 7),
            ends_on: plusDays(monday, 14),
            nightly_price: '200.00',
            weekend_price: '250.00',
          },
          // the third week: a season without one (weekend nights at its nightly price)
          { name: 'Low', starts_on: plusDays(monday, 14), ends_on: plusDays(monday, 21), nightly_price: '80.00' },
        ],
      },
    });
    const res = await quote(home, monday, plusDays(monday, 21));
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    const expected = dates(monday, 21).map((date, i) => {
      const weekend = [0, 4].includes(weekday(date));
      if (i >= 14) return { date, rate: 'season', price: '80.00' };
      if (i >= 7) return { date, rate: 'season', price: weekend ? '250.00' : '200.00' };
      return { date, rate: weekend ? 'weekend' : 'base', price: weekend ? '150.00' : '100.00' };
    });
    expect(withoutTax(res.data?.nights)).toEqual(expected);
    // 5×100 + 2×150 | 5×200 + 2×250 | 7×80
    expect(res.data?.subtotal).toBe('2860.00');
    expect(res.data?.fees).toEqual([]);
    expect(res.data?.total).toBe('2860.00');
  });

  it('uses the base price on weekend nights when no weekend price is set', async () => {
    const friday = nextWeekday(4, 10);
    const home = await newHome({ price: '70.00', terms: { weekend_price: null } });
    const res = await quote(home, friday, plusDays(friday, 2));
    expect(res.data?.nights.map((n) => [n.rate, n.price])).toEqual([
      ['base', '70.00'],
      ['base', '70.00'],
    ]);
  });

  it('charges cleaning once, the tourism fee per bedroom per night up to its cap, and keeps the deposit out of the total', async () => {
    const terms = {
      cleaning_fee: '450.00',
      tourism_fee_per_bedroom_night: '15.00',
      tourism_fee_max_nights: 30,
      deposit: '3000.00',
    };
    const home = await newHome({ price: '1000.00', bedrooms: 3, terms });
    const short = await quote(home, day(10), day(15));
    expect(withoutTax(short.data?.fees)).toEqual([
      { code: 'cleaning', amount: '450.00' },
      { code: 'tourism_fee', amount: '225.00' }, // 3 bedrooms × 5 nights × 15
    ]);
    expect(short.data?.total).toBe('5675.00');
    expect(short.data?.deposit).toBe('3000.00');
    const long = await quote(home, day(10), day(50));
    expect(withoutTax(long.data?.fees)?.[1]).toEqual({ code: 'tourism_fee', amount: '1350.00' }); // capped at 30 nights
    expect(long.data?.total).toBe('41800.00');
    const studioHome = await newHome({ price: '100.00', bedrooms: 0, terms });
    const studioQuote = await quote(studioHome, day(10), day(14));
    expect(withoutTax(studioQuote.data?.fees)?.[1]).toEqual({ code: 'tourism_fee', amount: '60.00' }); // a studio counts as 1 bedroom
    // The demo catalogue's studio too.
    const demoStudio = await quote(studio, day(10), day(14));
    expect(demoStudio.response.status, JSON.stringify(demoStudio.error)).toBe(200);
    expect(withoutTax(demoStudio.data?.fees)).toContainEqual({ code: 'tourism_fee', amount: '60.00' });
  });

  it('writes amounts with the currency’s minor digits (JPY none, KWD three)', async () => {
    for (const [currency, price, cleaning, night, total, deposit] of [
      ['JPY', '100', '5', '100', '1005', '0'],
      ['KWD', '100.25', '0.05', '100.250', '1002.550', '0.000'],
    ] as const) {
      const other = await world({ api: w.api, environment: 'development', company: { currency } });
      const home = await newHome({ price, terms: { cleaning_fee: cleaning } }, other);
      const res = await quote(home, day(10), day(20), 2, other);
      expect(res.response.status, JSON.stringify(res.error)).toBe(200);
      expect(res.data?.currency).toBe(currency);
      expect(res.data?.nights[0]?.price).toBe(night);
      // 10 nights and the cleaning fee
      expect(res.data?.total).toBe(total);
      expect(res.data?.deposit).toBe(deposit);
      // A price with more digits than the currency has is refused when the catalogue is imported, not rounded later.
      await expect(newHome({ price: currency === 'JPY' ? '99.50' : '100.1255' }, other)).rejects.toThrow(/currency_digits/);
    }
  });
});

describe('problems', () => {
  let home: string;
  let closedTuesday: string;

  beforeAll(async () => {
    home = await newHome({
      max_guests: 4,
      terms: {
        min_nights: 3,
        max_nights: 10,
        notice_hours: 72,
        advance_days: 60,
        available_from: day(20),
        available_to: day(65),
      },
    });
    expect((await addBlock(home, day(50), day(52))).status).toBe(201);
    closedTuesday = await newHome({ max_guests: 4, terms: { min_nights: 3, closed_arrival_days: [1] } });
  });

  it.each([
    ['min_nights', 30, 2, 2],
    ['max_nights', 30, 11, 2],
    ['guests', 30, 3, 5],
    ['advance', 61, 3, 2],
    ['unavailable', 17, 3, 2], // before available_from
    ['unavailable', 60, 6, 2], // after available_to
    ['unavailable', 49, 3, 2], // the block
    ['unavailable', 51, 1 + 2, 2], // starts inside the block
  ] as const)('refuses %s with 400 and the rule’s code (day %i, %i nights, %i guests)', async (code, offset, nights, guests) => {
    const res = await quote(home, day(offset), day(offset + nights), guests);
    expect(res.response.status, JSON.stringify(res.error)).toBe(400);
    expect(res.error?.code).toBe(code);
    expect(codes(res)).toEqual([code]);
  });

  it('accepts the edges of every rule', async () => {
    for (const [offset, nights, guests] of [
      [30, 3, 4], // min_nights, max_guests
      [30, 10, 1], // max_nights
      [60, 3, 2], // exactly advance_days ahead
      [20, 3, 2], // available_from
      [60, 5, 2], // check_out on available_to
      [47, 3, 2], // check_out on the block's first night
      [52, 3, 2], // check_in on the block's end
    ] as const) {
      const res = await quote(home, day(offset), day(offset + nights), guests);
      expect(res.response.status, `day ${offset}, ${nights} nights, ${guests} guests: ${JSON.stringify(res.error)}`).toBe(200);
    }
  });

  it('refuses an arrival on a closed weekday with arrival_day (0 = Monday), and takes the days around it', async () => {
    const tuesday = nextWeekday(1, 30);
    const res = await quote(closedTuesday, tuesday, plusDays(tuesday, 3));
    expect(res.response.status).toBe(400);
    expect(res.error?.code).toBe('arrival_day');
    expect(codes(res)).toEqual(['arrival_day']);
    for (const start of [plusDays(tuesday, -1), plusDays(tuesday, 1)]) {
      expect((await quote(closedTuesday, start, plusDays(start, 3))).response.status).toBe(200);
    }
    // A stay over a Tuesday that does not start on one is fine.
    expect((await quote(closedTuesday, plusDays(tuesday, -2), plusDays(tuesday, 2))).response.status).toBe(200);
  });

  it('refuses a check-in within notice_hours, and one in the past, with notice', async () => {
    const near = await newHome({ terms: { notice_hours: 72 } });
    expect((await quote(near, day(2), day(4))).error?.code).toBe('notice'); // at most 57 hours away
    expect((await quote(near, day(4), day(6))).response.status).toBe(200); // at least 81 hours away
    const none = await newHome({ terms: { notice_hours: 0 } });
    const past = await quote(none, day(-3), day(-1));
    expect(past.response.status).toBe(400);
    expect(past.error?.code).toBe('notice');
  });

  it('lists every broken rule in `errors`, the first as the code', async () => {
    const tuesday = nextWeekday(1, 30);
    const res = await quote(closedTuesday, tuesday, plusDays(tuesday, 1), 9);
    expect(res.response.status).toBe(400);
    expect(res.error?.code).toBe('guests');
    expect(codes(res)).toEqual(['guests', 'min_nights', 'arrival_day']);
    expect(res.error?.errors?.map((e) => e.path)).toEqual(['guests', 'check_out', 'check_in']);
  });

  it('refuses check_out on or before check_in with 400 invalid_request', async () => {
    for (const checkOut of [day(30), day(29)]) {
      const res = await quote(villa, day(30), checkOut);
      expect(res.response.status).toBe(400);
      expect(res.error?.code).toBe('invalid_request');
      expect(res.error?.errors?.[0]?.path).toBe('check_out');
    }
  });

  it('refuses missing or malformed parameters with 400, and answers 404 for a home that takes no bookings', async () => {
    for (const query of ['', `?check_in=${day(30)}&check_out=${day(33)}`, `?check_in=x&check_out=${day(33)}&guests=2`]) {
      // Queries the document does not allow, sent as they are.
      const res = await w.anonymous.GET('/api/v1/listings/{slug}/quote', {
        params: { path: { slug: villa }, query: Object.fromEntries(new URLSearchParams(query)) as never },
      });
      expect(res.response.status, query).toBe(400);
    }
    expect((await quote('marina-gate-2br-sea-view', day(30), day(33))).response.status).toBe(404);
    const off = await world({ api: w.api, environment: 'development', settings: { bookings_enabled: false } });
    expect((await quote(villa, day(30), day(33), 2, off)).response.status).toBe(404);
  });
});

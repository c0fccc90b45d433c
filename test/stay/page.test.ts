import { beforeAll, describe, expect, it } from 'vitest';
import { book, day, newHome, setup, step, timeZone, useStay } from './support';

const ctx = useStay();
let home: string;

beforeAll(async () => {
  home = await newHome(ctx, {
    price: '200.00',
    bedrooms: 1,
    terms: { cleaning_fee: '50.00', tourism_fee_per_bedroom_night: '10.00', deposit: '300.00', payment_window_hours: 30 },
  });
});

let offset = 10;
const nights = (n = 2) => {
  const from = offset;
  offset += n;
  return [day(from), day(from + n)] as const;
};

/** GET a stay page by its full address, on the host the address names (or another one). */
// raw: the stay page is an HTML page outside the API's document
const open = (stayUrl: string, host = new URL(stayUrl).host) => ctx.api.request(new URL(stayUrl).pathname, { host });

/** The instant as the page must show it: the visitor's language, the company's time zone, the zone named. */
const when = (iso: string, language: 'en' | 'ar') =>
  new Intl.DateTimeFormat(language === 'ar' ? 'ar-AE-u-nu-latn' : 'en-GB', {
    dateStyle: 'full',
    timeStyle: 'long',
    timeZone,
  }).format(new Date(iso));

/** A day at a local time of the home, as the page must show it: to the minute, the company's zone named. */
const atHome = (date: string, time: string, language: 'en' | 'ar') =>
  new Intl.DateTimeFormat(language === 'ar' ? 'ar-AE-u-nu-latn' : 'en-GB', {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
    timeZone,
  }).format(new Date(`${date}T${time}:00+04:00`)); // Asia/Dubai: +04:00 all year

describe('the stay page', () => {
  it('shows the reference, status, quote total, amount due and the date to confirm by, never cached or referred', async () => {
    const booking = await book(ctx, home, ...nights());
    expect(booking.quote.total).toBe('470.00'); // 2 × 200 + 50 + 2 × 10
    const res = await open(booking.stay_url);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/html/);
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    expect(res.headers.get('Referrer-Policy')).toBe('no-referrer');
    expect(res.text).toContain('<html lang="en" dir="ltr">');
    expect(res.text).toContain(`<strong data-reference>${booking.reference}</strong>`);
    expect(res.text).toContain('data-status="held"');
    expect(res.text).toContain('<td class="amount" data-total>AED\u00a0470.00</td>');
    expect(res.text).toContain('<td class="amount" data-due>AED\u00a0770.00</td>'); // total + deposit
    expect(res.text).toContain(`The company confirms by ${when(booking.hold_expires_at, 'en')}`);
    // Check-in and check-out at the home's times (15:00, 11:00), in the company's zone, named.
    const [checkIn, checkOut] = [booking.quote.check_in as string, booking.quote.check_out as string];
    expect(res.text).toContain(`<dd data-check-in>${atHome(checkIn, '15:00', 'en')}</dd>`);
    expect(res.text).toContain(`<dd data-check-out>${atHome(checkOut, '11:00', 'en')}</dd>`);
    expect(atHome(checkIn, '15:00', 'en')).toMatch(/ at 15:00 GST$/);
    for (const night of booking.quote.nights) expect(res.text).toContain(`AED\u00a0${night.price}`);
    // Nothing of the guest but the stay itself.
    expect(res.text).not.toContain('Layla');
    expect(res.text).not.toContain('@example.com');
  });

  it('reflects status changes: confirmed shows the payment due date, paid and cancelled show nothing due', async () => {
    const booking = await book(ctx, home, ...nights());
    const confirmed = await step(ctx, booking.reference, 'confirm');
    const page = await open(booking.stay_url);
    expect(page.text).toContain('data-status="confirmed"');
    expect(page.text).toContain(`Payment due by ${when(confirmed.json.payment_due_at, 'en')}`);
    expect(page.text).toContain('data-due>AED\u00a0770.00');
    await step(ctx, booking.reference, 'mark-paid');
    const paid = await open(booking.stay_url);
    expect(paid.text).toContain('data-status="paid"');
    expect(paid.text).toContain('Nothing is due.');
    expect(paid.text).not.toContain('data-due');
    const other = await book(ctx, home, ...nights());
    await step(ctx, other.reference, 'cancel');
    const cancelled = await open(other.stay_url);
    expect(cancelled.status).toBe(200);
    expect(cancelled.text).toContain('data-status="cancelled"');
    expect(cancelled.text).not.toContain('data-due');
  });

  it('speaks Arabic, right to left, to a guest who asked in Arabic', async () => {
    const booking = await book(ctx, home, ...nights(), { language: 'ar' });
    const res = await open(booking.stay_url);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<html lang="ar" dir="rtl">');
    expect(res.text).toContain('إقامتك');
    expect(res.text).toContain('رقم الحجز');
    expect(res.text).toContain(when(booking.hold_expires_at, 'ar'));
    expect(res.text).toContain('470.00\u00a0د.إ.'); // the dirham's Arabic sign, Latin digits
    expect(res.text).toMatch(/GMT\+4|غرينتش\+4/); // the company's zone named
    // The arrival reads as one Arabic phrase (its own comma, "في", 3:00 م), not an English ", 15:00" glued on.
    expect(res.text).toContain(`<dd data-check-in>${atHome(booking.quote.check_in, '15:00', 'ar')}</dd>`);
    expect(res.text).not.toContain(', 15:00');
  });

  it('answers 404 HTML for an unknown or malformed token, and for a token on another company’s host', async () => {
    const booking = await book(ctx, home, ...nights());
    const token = new URL(booking.stay_url).pathname.split('/').pop() as string;
    const other = await setup({ api: ctx.api });
    const unknown = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const [path, host] of [
      [`/stay/${unknown}`, ctx.company.host],
      [`/stay/${token.slice(0, 31)}`, ctx.company.host],
      [`/stay/${token}x`, ctx.company.host],
      [`/stay/${token.slice(0, 31)}-`, ctx.company.host],
      [`/stay/${token}`, other.company.host],
      [`/stay/${token}`, 'unknown.test'],
    ] as const) {
      // raw: the stay page (HTML), outside the API's document
      const res = await ctx.api.request(path, { host });
      expect(res.status, `${host}${path}`).toBe(404);
      expect(res.headers.get('Content-Type')).toMatch(/^text\/html/);
      expect(res.headers.get('Cache-Control')).toBe('no-store');
      expect(res.text).toContain('This stay page does not exist.');
      expect(res.text).not.toContain(booking.reference);
    }
    // raw: the stay page (HTML), outside the API's document
    expect((await ctx.api.request(`/stay/${token}`, { host: ctx.company.host })).status).toBe(200);
  });
});

import { sql } from 'kysely';
import { randomToken } from '../../lib/crypto';
import { developmentToken } from '../../lib/spam-check';
import type { TestClient } from '../support/client';
import { createTestApi, demo, type RequestOptions, type TestApi } from '../support/harness';
import { createKey, demoCompany, importCatalogue } from '../support/world';

/**
 * Shared setup of the booking tests: a development company with the demo catalogue and bookings switched on,
 * a publishable key allowed to send bookings from `origin`, fresh holiday homes with terms set by each test,
 * and dates counted from today in the company's time zone (Asia/Dubai).
 */
export const origin = 'https://www.example.com';
export const timeZone = 'Asia/Dubai';
export const villa = 'palm-5br-villa-private-beach-holiday';
export const villaAr = 'نخلة-جميرا-فيلا-عطلات-شاطئ-خاص';
export const studio = 'jvc-studio-holiday-home';

export type Company = { id: string; host: string };
export type Ctx = { api: TestApi; company: Company; pk: string };

/** Today in a time zone, computed apart from lib/dates (so the tests do not check the code with itself). */
export function todayInZone(zone = timeZone, now = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

export function plusDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Today + `offset` days in the company's time zone. */
export const day = (offset: number) => plusDays(todayInZone(), offset);

/**
 * A test file's own run of stays: each call gives the next `n` nights (check-in and check-out) from `start` days
 * ahead, so no two bookings of the file ask for the same night.
 */
export function stays(start: number) {
  let offset = start;
  return (n = 3) => {
    const from = offset;
    offset += n;
    return [day(from), day(from + n)] as const;
  };
}

/** 0 = Monday … 6 = Sunday. */
export const weekday = (date: string) => (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7;

/** The first date at least `offset` days ahead that falls on `wd` (0 = Monday). */
export function nextWeekday(wd: number, offset = 7): string {
  let date = day(offset);
  while (weekday(date) !== wd) date = plusDays(date, 1);
  return date;
}

/** Plain terms: no weekend price, no fees, no closed days; each test sets what it checks. */
export const plainTerms = {
  min_nights: 1,
  max_nights: 90,
  closed_arrival_days: [] as number[],
  advance_days: 365,
  notice_hours: 24,
  available_from: null as string | null,
  available_to: null as string | null,
  check_in_time: '15:00',
  check_out_time: '11:00',
  weekend_nights: [4, 5],
  weekend_price: null as string | null,
  cleaning_fee: '0',
  tourism_fee_per_bedroom_night: '0',
  tourism_fee_max_nights: 30,
  deposit: '0',
  payment_window_hours: 48,
  turnover_days: 0,
  seasons: [] as Array<Record<string, unknown>>,
};
export type Terms = typeof plainTerms;

export async function setup(
  options: {
    environment?: 'development' | 'production';
    settings?: Record<string, unknown>;
    overrides?: Record<string, unknown>;
    ownDatabase?: boolean;
    env?: Record<string, string>;
    api?: TestApi;
  } = {},
): Promise<Ctx> {
  const api =
    options.api ??
    (await createTestApi({
      ownDatabase: options.ownDatabase,
      // The limits have their own tests; here many forms are sent with one key within a minute.
      env: { RATE_LIMIT_PUBLISHABLE_KEY_PER_MINUTE: '100000', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000', ...options.env },
    }));
  const company = await demoCompany(
    api,
    { bookings_enabled: true, ...options.settings },
    { environment: options.environment ?? 'development', ...options.overrides },
  );
  const pk = await publishableKey(api, company.id);
  return { api, company, pk };
}

export async function publishableKey(api: TestApi, companyId: string, leadTypes = ['booking']): Promise<string> {
  const key = await createKey(api, companyId, { kind: 'publishable', origins: [origin], lead_types: leadTypes as never });
  return key.secret;
}

/** Replaces a home's booking terms (and seasons). */
export async function setTerms(ctx: Ctx, slug: string, terms: Partial<Terms> = {}) {
  const res = await ctx.api.admin(`/companies/${ctx.company.id}/listings/${encodeURIComponent(slug)}/booking-terms`, {
    method: 'PUT',
    body: { ...plainTerms, ...terms },
  });
  if (res.status !== 200) throw new Error(`terms not set: ${res.text}`);
}

const villaListing = demo.listings.find((l) => l.slug.en === villa)!;

/**
 * A new holiday home of the company (imported like the catalogue, from the demo villa) with its own slug,
 * nightly price, size and terms, so a test's bookings touch no other test's home.
 */
export async function newHome(
  ctx: Ctx,
  options: { price?: string; bedrooms?: number; max_guests?: number; status?: string; terms?: Partial<Terms> } = {},
): Promise<string> {
  const slug = `home-${randomToken(8).toLowerCase()}`;
  const listing = {
    ...villaListing,
    slug: { en: slug, ar: `بيت-${slug}` },
    status: options.status ?? 'published',
    price: options.price ?? '100.00',
    bedrooms: options.bedrooms ?? 2,
    max_guests: options.max_guests ?? 6,
    booking: { ...plainTerms, ...options.terms },
  };
  await importCatalogue(ctx.api, ctx.company.id, { listings: [listing] });
  return slug;
}

let serial = 0;
export const uniqueEmail = () => `guest.${randomToken(6).toLowerCase()}${serial++}@example.com`;

/** A valid booking request for `listing` from check_in to check_out. */
export function bookingBody(listing: string, checkIn: string, checkOut: string, extra: Record<string, unknown> = {}) {
  return {
    listing,
    check_in: checkIn,
    check_out: checkOut,
    guests: 2,
    name: 'Layla Guest',
    email: uniqueEmail(),
    consent: true as const,
    consent_version: '2026-01',
    challenge: developmentToken,
    website: '',
    ...extra,
  };
}

/**
 * A guest's booking requests from the company's website through a typed form client: `request` answers as sent,
 * `book` the booking made (throwing when refused).
 */
export function bookingsThrough(forms: TestClient) {
  const request = (home: string, checkIn: string, checkOut: string) =>
    forms.POST('/api/v1/bookings', { body: bookingBody(home, checkIn, checkOut) });
  const book = async (home: string, checkIn: string, checkOut: string) => {
    const { data, error } = await request(home, checkIn, checkOut);
    if (!data) throw new Error(`booking refused: ${JSON.stringify(error)}`);
    return data;
  };
  return { request, book };
}

/** POST /api/v1/bookings from the browser: the publishable key in X-Api-Key and the page's Origin. */
export function postBooking(
  ctx: Ctx,
  body: unknown,
  o: { key?: string | null; origin?: string | null } & Omit<RequestOptions, 'key'> = {},
) {
  const { key = ctx.pk, origin: from = origin, ...rest } = o;
  const headers: Record<string, string> = { ...rest.headers };
  if (key !== null) headers['X-Api-Key'] = key;
  if (from !== null) headers.Origin = from;
  return ctx.api.request('/api/v1/bookings', { host: ctx.company.host, body, ...rest, headers });
}

/** Books and checks the 201. */
export async function book(ctx: Ctx, listing: string, checkIn: string, checkOut: string, extra: Record<string, unknown> = {}) {
  const res = await postBooking(ctx, bookingBody(listing, checkIn, checkOut, extra));
  if (res.status !== 201) throw new Error(`booking refused: ${res.status} ${res.text}`);
  return res.json as { reference: string; stay_url: string; hold_expires_at: string; quote: Record<string, any> };
}

export function availability(ctx: Ctx, slug: string, query = '', o: RequestOptions = {}) {
  return ctx.api.request(`/api/v1/listings/${encodeURIComponent(slug)}/availability${query}`, { host: ctx.company.host, ...o });
}

export function quote(ctx: Ctx, slug: string, checkIn: string, checkOut: string, guests = 2) {
  return ctx.api.request(
    `/api/v1/listings/${encodeURIComponent(slug)}/quote?check_in=${checkIn}&check_out=${checkOut}&guests=${guests}`,
    { host: ctx.company.host },
  );
}

export const adminBooking = (ctx: Ctx, reference: string) => ctx.api.admin(`/companies/${ctx.company.id}/bookings/${reference}`);

export const step = (ctx: Ctx, reference: string, action: 'confirm' | 'mark-paid' | 'cancel') =>
  ctx.api.admin(`/companies/${ctx.company.id}/bookings/${reference}/${action}`, { method: 'POST' });

export function addBlock(ctx: Ctx, slug: string, startsOn: string, endsOn: string, reason = 'owner') {
  return ctx.api.admin(`/companies/${ctx.company.id}/listings/${encodeURIComponent(slug)}/blocks`, {
    body: { reason, starts_on: startsOn, ends_on: endsOn },
  });
}

/** The booking row (for what the API does not show), by reference. */
export const bookingRow = (ctx: Ctx, reference: string) =>
  ctx.api.db.selectFrom('bookings').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();

/** booking.* events of a booking, oldest first. */
export async function bookingEvents(ctx: Ctx, reference: string) {
  const rows = await ctx.api.db
    .selectFrom('events')
    .selectAll()
    .where('company_id', '=', ctx.company.id)
    .where('type', 'like', 'booking.%')
    .where(sql<boolean>`data->>'reference' = ${reference}`)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows;
}

export async function countBookings(ctx: Ctx, listing?: string): Promise<number> {
  let query = ctx.api.db
    .selectFrom('bookings as b')
    .innerJoin('listings as l', 'l.id', 'b.listing_id')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('b.company_id', '=', ctx.company.id);
  if (listing) query = query.where('l.slug_en', '=', listing);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/** Codes of a problem's `errors`. */
export const codes = (res: { json?: { errors?: Array<{ code: string }> } }) => (res.json?.errors ?? []).map((e) => e.code);

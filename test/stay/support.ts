import { sql } from 'kysely';
import { afterAll, beforeAll, expect } from 'vitest';
import { randomToken } from '../../lib/crypto';
import { developmentToken } from '../../lib/spam-check';
import type { AdminBody, TestClient } from '../support/client';
import { testClient } from '../support/client';
import { createTestApi, demo, type TestApi } from '../support/harness';
import { adminOf, createKey, demoCompany, importCatalogue, useWorld } from '../support/world';

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
/** What the admin API's and the public API's calls about a company need: its test API and the company (a Ctx, a world). */
export type On = Pick<Ctx, 'api' | 'company'>;

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

/**
 * The booking context of a test file (or a `describe` block), made by {@link setup} before its tests and closed after
 * them (unless an API was handed in): `const ctx = useStay();`. `options` may be a function, called when it is made.
 */
export function useStay(options: Parameters<typeof setup>[0] | (() => Parameters<typeof setup>[0]) = {}): Ctx {
  const ctx = {} as Ctx;
  let own = true;
  beforeAll(async () => {
    const given = typeof options === 'function' ? options() : options;
    own = !given?.api;
    Object.assign(ctx, await setup(given));
  });
  afterAll(() => (own ? ctx.api?.close() : undefined));
  return ctx;
}

/**
 * A development world (its booking form takes the spam check's test token) and the typed client of its website's
 * booking form, made before the file's tests and closed after them: `const { w, forms } = useBookingWorld();`.
 */
export function useBookingWorld() {
  const w = useWorld({ environment: 'development' });
  const forms = {} as TestClient;
  beforeAll(async () => {
    Object.assign(forms, await w.formClient(['booking']));
  });
  return { w, forms };
}

export async function publishableKey(api: TestApi, companyId: string, leadTypes = ['booking']): Promise<string> {
  const key = await createKey(api, companyId, { kind: 'publishable', origins: [origin], lead_types: leadTypes as never });
  return key.secret;
}

/** What an openapi-fetch call resolves with. */
type Called = { data?: unknown; error?: unknown; response: Response };

/**
 * A typed client's answer (openapi-fetch's `data`, `error` and `response`, as typed) with the harness's reading of it
 * beside: `status`, `headers`, `json` (the body: `data` or the problem) and `text`, for checks written on those.
 */
export async function answer<T extends Called>(call: Promise<T>) {
  const res = await call;
  const body = res.data ?? res.error;
  const json: any = typeof body === 'string' ? undefined : body;
  const text = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body);
  return Object.assign(res, { status: res.response.status, headers: res.response.headers, json, text });
}

/** The path parameters of the admin API's calls about a company and one of its homes. */
export const homePath = (ctx: On, slug: string) => ({ company_id: ctx.company.id, slug });

/** The typed client of the company's host without a key (what anyone may read), with these headers. */
export const anonymousOf = (ctx: On, headers: Record<string, string> = {}) =>
  testClient(ctx.api, { host: ctx.company.host, headers });

/** PUT a home's booking terms, exactly `body` (any: a test may send what the schema refuses), as answered. */
export const putTerms = (ctx: On, slug: string, body: Record<string, unknown>) =>
  answer(
    adminOf(ctx.api).PUT('/admin/v1/companies/{company_id}/listings/{slug}/booking-terms', {
      params: { path: homePath(ctx, slug) },
      body: body as AdminBody<'setCompanyListingBookingTerms'>,
    }),
  );

/** Replaces a home's booking terms (and seasons). */
export async function setTerms(ctx: On, slug: string, terms: Partial<Terms> = {}) {
  const res = await putTerms(ctx, slug, { ...plainTerms, ...terms });
  if (res.status !== 200) throw new Error(`terms not set: ${res.text}`);
}

/** POST a catalogue document to the company's import, as answered (a refusal too). */
export const importDocument = (ctx: On, doc: Record<string, unknown>) =>
  answer(
    adminOf(ctx.api).POST('/admin/v1/companies/{company_id}/catalogue/import', {
      params: { path: { company_id: ctx.company.id } },
      body: doc as AdminBody<'importCompanyCatalogue'>,
    }),
  );

const villaListing = demo.listings.find((l) => l.slug.en === villa)!;

/**
 * A new holiday home of the company (imported like the catalogue, from the demo villa) with its own slug,
 * nightly price, size and terms, so a test's bookings touch no other test's home.
 */
export async function newHome(
  ctx: Ctx,
  options: {
    price?: string;
    bedrooms?: number;
    max_guests?: number;
    status?: string;
    terms?: Partial<Terms>;
    /** More fields of the imported listing (e.g. its `tax_category`). */
    listing?: Record<string, unknown>;
    /** A home imported before: imported again (the import upserts by slug) with these options. */
    slug?: string;
  } = {},
): Promise<string> {
  const slug = options.slug ?? `home-${randomToken(8).toLowerCase()}`;
  const listing = {
    ...villaListing,
    slug: { en: slug, ar: `بيت-${slug}` },
    status: options.status ?? 'published',
    price: options.price ?? '100.00',
    bedrooms: options.bedrooms ?? 2,
    max_guests: options.max_guests ?? 6,
    booking: { ...plainTerms, ...options.terms },
    ...options.listing,
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
 * A guest's booking requests from the company's website through a typed form client: `send` answers as sent,
 * `book` the booking made (throwing when refused).
 */
export function bookingsThrough(forms: TestClient) {
  const send = (home: string, checkIn: string, checkOut: string) =>
    forms.POST('/api/v1/bookings', { body: bookingBody(home, checkIn, checkOut) });
  const book = async (home: string, checkIn: string, checkOut: string) => {
    const { data, error } = await send(home, checkIn, checkOut);
    if (!data) throw new Error(`booking refused: ${JSON.stringify(error)}`);
    return data;
  };
  return { send, book };
}

/** POST /api/v1/bookings from the browser through the typed client: the publishable key in X-Api-Key and the page's Origin. */
export function postBooking(
  ctx: Ctx,
  body: unknown,
  o: { key?: string | null; origin?: string | null; clientAddress?: string; headers?: Record<string, string> } = {},
) {
  const { key = ctx.pk, origin: from = origin } = o;
  const headers: Record<string, string> = { ...o.headers };
  if (key !== null) headers['X-Api-Key'] = key;
  if (from !== null) headers.Origin = from;
  if (o.clientAddress) headers['x-test-client-address'] = o.clientAddress;
  return answer(anonymousOf(ctx).POST('/api/v1/bookings', { body: body as never, headers }));
}

/** Books and checks the 201. */
export async function book(ctx: Ctx, listing: string, checkIn: string, checkOut: string, extra: Record<string, unknown> = {}) {
  const res = await postBooking(ctx, bookingBody(listing, checkIn, checkOut, extra));
  if (res.status !== 201) throw new Error(`booking refused: ${res.status} ${res.text}`);
  return res.json as { reference: string; stay_url: string; hold_expires_at: string; quote: Record<string, any> };
}

/** GET /listings/{slug}/availability with a query string's parameters (any: a test may send what the schema refuses). */
export function availability(ctx: On, slug: string, query = '', o: { headers?: Record<string, string> } = {}) {
  return answer(
    anonymousOf(ctx).GET('/api/v1/listings/{slug}/availability', {
      params: { path: { slug }, query: Object.fromEntries(new URLSearchParams(query)) as never },
      headers: o.headers,
    }),
  );
}

export function quote(ctx: On, slug: string, checkIn: string, checkOut: string, guests = 2) {
  return answer(
    anonymousOf(ctx).GET('/api/v1/listings/{slug}/quote', {
      params: { path: { slug }, query: { check_in: checkIn, check_out: checkOut, guests } },
    }),
  );
}

export const adminBooking = (ctx: On, reference: string) =>
  answer(
    adminOf(ctx.api).GET('/admin/v1/companies/{company_id}/bookings/{reference}', {
      params: { path: { company_id: ctx.company.id, reference } },
    }),
  );

export const step = (ctx: On, reference: string, action: 'confirm' | 'mark-paid' | 'cancel') =>
  answer(
    adminOf(ctx.api).POST(`/admin/v1/companies/{company_id}/bookings/{reference}/${action}`, {
      params: { path: { company_id: ctx.company.id, reference } },
    }),
  );

export function addBlock(ctx: On, slug: string, startsOn: string, endsOn: string, reason = 'owner') {
  return answer(
    adminOf(ctx.api).POST('/admin/v1/companies/{company_id}/listings/{slug}/blocks', {
      params: { path: homePath(ctx, slug) },
      body: { reason, starts_on: startsOn, ends_on: endsOn } as AdminBody<'createCompanyListingBlock'>,
    }),
  );
}

/** DELETE a block of a home (by its id). */
export const removeBlock = (ctx: On, slug: string, blockId: string) =>
  answer(
    adminOf(ctx.api).DELETE('/admin/v1/companies/{company_id}/listings/{slug}/blocks/{block_id}', {
      params: { path: { ...homePath(ctx, slug), block_id: blockId } },
    }),
  );

/** A home's blocks as the admin API lists them (checking the 200). */
export async function blocksOf(ctx: On, slug: string) {
  const res = await answer(
    adminOf(ctx.api).GET('/admin/v1/companies/{company_id}/listings/{slug}/blocks', { params: { path: homePath(ctx, slug) } }),
  );
  expect(res.status, res.text).toBe(200);
  return res.data?.results ?? [];
}

/** GET /listings/{slug}/calendar.ics through the typed client, read as text (or on another company's host). */
export function calendarFeed(ctx: On, slug: string, o: { query?: string; headers?: Record<string, string>; host?: string } = {}) {
  return answer(
    testClient(ctx.api, { host: o.host ?? ctx.company.host }).GET('/api/v1/listings/{slug}/calendar.ics', {
      params: { path: { slug }, query: Object.fromEntries(new URLSearchParams(o.query ?? '')) as never },
      headers: o.headers,
      parseAs: 'text',
    }),
  );
}

/** The admin API's calendar imports of a company's homes, through its typed client, each answered as {@link answer} reads it. */
export function calendarImports(ctx: On) {
  const admin = adminOf(ctx.api);
  const one = (slug: string, id: string) => ({ params: { path: { ...homePath(ctx, slug), import_id: id } } });
  const i = {
    /** POST a new import of a home (any body: a test may send what the schema refuses). */
    create: (slug: string, body: Record<string, unknown>) =>
      answer(
        admin.POST('/admin/v1/companies/{company_id}/listings/{slug}/calendar-imports', {
          params: { path: homePath(ctx, slug) },
          body: body as AdminBody<'createCompanyListingCalendarImport'>,
        }),
      ),
    list: (slug: string) =>
      answer(
        admin.GET('/admin/v1/companies/{company_id}/listings/{slug}/calendar-imports', { params: { path: homePath(ctx, slug) } }),
      ),
    patch: (slug: string, id: string, body: Record<string, unknown>) =>
      answer(
        admin.PATCH('/admin/v1/companies/{company_id}/listings/{slug}/calendar-imports/{import_id}', {
          ...one(slug, id),
          body: body as AdminBody<'updateCompanyListingCalendarImport'>,
        }),
      ),
    remove: (slug: string, id: string) =>
      answer(admin.DELETE('/admin/v1/companies/{company_id}/listings/{slug}/calendar-imports/{import_id}', one(slug, id))),
    sync: (slug: string, id: string) =>
      answer(admin.POST('/admin/v1/companies/{company_id}/listings/{slug}/calendar-imports/{import_id}/sync', one(slug, id))),
    /**
     * A new import of `url` for a home (checking the 201), out of the scheduler's reach: on PostgreSQL other test files
     * run the scheduled work on the shared database; these tests sync by hand, and the scheduler's tests set their own
     * due time. Its id and the import as made.
     */
    add: async (slug: string, url: string, channel = 'airbnb') => {
      const res = await i.create(slug, { url, channel });
      expect(res.status, res.text).toBe(201);
      const id = res.json.import_id as string;
      await sql`update calendar_imports set next_sync_at = '2200-01-01T00:00:00Z' where id = ${id}::uuid`.execute(ctx.api.db);
      return { id, made: res.json };
    },
  };
  return i;
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

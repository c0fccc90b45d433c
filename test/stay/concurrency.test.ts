import { sql } from 'kysely';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { lockHomeCalendar } from '../../lib/calendar';
import { randomToken, sha256 } from '../../lib/crypto';
import {
  addBlock,
  availability,
  book,
  bookingBody,
  bookingEvents,
  bookingRow,
  day,
  newHome,
  plainTerms,
  plusDays,
  postBooking,
  putTerms,
  removeBlock,
  step,
  useStay,
} from './support';

/**
 * Two requests for the same nights: exactly one holds them. On PGlite the requests are serialised by its single
 * session; on PostgreSQL (DATABASE_URL) they truly race, and the database settles them.
 */
const ctx = useStay();

/** PUT booking-terms (plain terms, over them `terms`), answered as it is. */
const setTermsAnswer = (slug: string, terms: Record<string, unknown>) => putTerms(ctx, slug, { ...plainTerms, ...terms });

const activeBookings = async (slug: string) =>
  ctx.api.db
    .selectFrom('bookings as b')
    .innerJoin('listings as l', 'l.id', 'b.listing_id')
    .select(['b.reference', 'b.check_in', 'b.check_out'])
    .where('l.slug_en', '=', slug)
    .where('b.company_id', '=', ctx.company.id)
    .where('b.status', '<>', 'cancelled')
    .execute();

describe('concurrent booking requests', () => {
  it('gives overlapping nights to exactly one of 10 concurrent requests; the others are refused with unavailable', async () => {
    const home = await newHome(ctx);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => postBooking(ctx, bookingBody(home, day(30 + (i % 3)), day(35 + (i % 3))))),
    );
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.filter((s) => s === 201),
      JSON.stringify(answers.map((a) => a.json?.code ?? a.status)),
    ).toHaveLength(1);
    for (const refused of answers.filter((a) => a.status !== 201)) {
      expect(refused.status, refused.text).toBe(400);
      expect(refused.json.code).toBe('unavailable');
    }
    const rows = await activeBookings(home);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.reference).toBe(answers.find((a) => a.status === 201)?.json.reference);
  });

  it('takes concurrent requests for different nights of one home, all of them', async () => {
    const home = await newHome(ctx);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => postBooking(ctx, bookingBody(home, day(40 + 3 * i), day(43 + 3 * i)))),
    );
    expect(answers.map((a) => (a.status === 201 ? 201 : a.text))).toEqual(Array(6).fill(201));
    expect(await activeBookings(home)).toHaveLength(6);
    const shown = await availability(ctx, home, `?from=${day(0)}&to=${day(100)}`);
    expect(shown.json.blocked).toEqual([{ start: day(40), end: day(58) }]);
  });

  it('books concurrent requests of one new guest for several homes, all of them, under one contact', async () => {
    const homes = await Promise.all(Array.from({ length: 4 }, () => newHome(ctx)));
    const email = `same.guest.${Date.now()}@example.com`;
    const answers = await Promise.all(homes.map((home) => postBooking(ctx, bookingBody(home, day(20), day(23), { email }))));
    expect(answers.map((a) => (a.status === 201 ? 201 : a.text))).toEqual([201, 201, 201, 201]);
    const people = await ctx.api.db
      .selectFrom('bookings as b')
      .innerJoin('contacts as p', 'p.id', 'b.contact_id')
      .select('p.reference')
      .where(
        'b.reference',
        'in',
        answers.map((a) => a.json.reference as string),
      )
      .execute();
    expect(new Set(people.map((p) => p.reference)).size).toBe(1);
    const created = await ctx.api.db
      .selectFrom('events')
      .select('id')
      .where('company_id', '=', ctx.company.id)
      .where('type', '=', 'contact.created')
      .where(sql<boolean>`data->>'reference' = ${people[0]?.reference}`)
      .execute();
    expect(created).toHaveLength(1);
  });

  it('settles a block added while requests for its nights are in flight: the nights go to one side only', async () => {
    const home = await newHome(ctx);
    const [block, ...requests] = await Promise.all([
      addBlock(ctx, home, day(60), day(65)),
      ...Array.from({ length: 4 }, () => postBooking(ctx, bookingBody(home, day(62), day(64)))),
    ]);
    const booked = requests.filter((r) => r.status === 201);
    if (block?.status === 201) {
      expect(booked).toHaveLength(0);
    } else {
      expect(block?.status, block?.text).toBe(409);
      expect(booked).toHaveLength(1);
    }
    for (const r of requests.filter((x) => x.status !== 201)) expect(r.json.code).toBe('unavailable');
  });
});

describe('concurrent staff writes (issue 28: each a read and one guarded statement, the terms row locked first)', () => {
  const seasonsOf = async (slug: string) =>
    (
      await ctx.api.db
        .selectFrom('holiday_home_seasons as s')
        .innerJoin('listings as l', 'l.id', 's.listing_id')
        .select(['s.name', sql<string>`s.starts_on::text`.as('starts_on')])
        .where('l.slug_en', '=', slug)
        .where('l.company_id', '=', ctx.company.id)
        .orderBy('s.starts_on')
        .execute()
    ).map((s) => `${s.name} ${s.starts_on}`);

  it('moves a booking once under 6 concurrent confirms: one 200 and one booking.confirmed, the others 409 invalid_transition', async () => {
    const home = await newHome(ctx);
    const { reference } = await book(ctx, home, day(70), day(73));
    const answers = await Promise.all(Array.from({ length: 6 }, () => step(ctx, reference, 'confirm')));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const refused of answers.filter((a) => a.status !== 200)) {
      expect(refused.status, refused.text).toBe(409);
      expect(refused.json.code).toBe('invalid_transition');
    }
    expect((await bookingEvents(ctx, reference)).map((e) => e.type)).toEqual(['booking.requested', 'booking.confirmed']);
  });

  it('settles a cancel and a mark-paid sent together: the booking ends as the last of them says, each with its event', async () => {
    const home = await newHome(ctx);
    const { reference } = await book(ctx, home, day(70), day(73));
    expect((await step(ctx, reference, 'confirm')).status).toBe(200);
    const [paid, cancelled] = await Promise.all([step(ctx, reference, 'mark-paid'), step(ctx, reference, 'cancel')]);
    // The cancel always succeeds (from confirmed or paid); the payment only when it came first.
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.json.status).toBe('cancelled');
    const types = (await bookingEvents(ctx, reference)).map((e) => e.type);
    if (paid.status === 200) {
      expect(types).toEqual(['booking.requested', 'booking.confirmed', 'booking.paid', 'booking.cancelled']);
    } else {
      expect(paid.json.code).toBe('invalid_transition');
      expect(types).toEqual(['booking.requested', 'booking.confirmed', 'booking.cancelled']);
    }
    expect((await bookingRow(ctx, reference)).status).toBe('cancelled');
  });

  it('adds a block while booking requests for other nights of the home move its calendar: all of them, none refused', async () => {
    const home = await newHome(ctx);
    const [block, ...requests] = await Promise.all([
      addBlock(ctx, home, day(80), day(83)),
      ...Array.from({ length: 5 }, (_, i) => postBooking(ctx, bookingBody(home, day(83 + 2 * i), day(85 + 2 * i)))),
    ]);
    expect(block?.status, block?.text).toBe(201);
    expect(requests.map((r) => (r.status === 201 ? 201 : r.text))).toEqual(Array(5).fill(201));
    const shown = await availability(ctx, home, `?from=${day(79)}&to=${day(100)}`);
    expect(shown.json.blocked).toEqual([{ start: day(80), end: day(93) }]);
  });

  it('replaces a home’s terms under 5 concurrent PUTs with overlapping seasons: every one 200, the seasons of exactly one', async () => {
    const home = await newHome(ctx);
    const sets = Array.from({ length: 5 }, (_, i) => [
      { name: `A${i}`, starts_on: plusDays(day(200), i), ends_on: plusDays(day(230), i), nightly_price: `${100 + i}` },
      { name: `B${i}`, starts_on: plusDays(day(240), 2 * i), ends_on: plusDays(day(260), 2 * i), nightly_price: '90' },
    ]);
    const answers = await Promise.all(sets.map((seasons) => setTermsAnswer(home, { seasons, min_nights: 2 })));
    expect(answers.map((a) => (a.status === 200 ? 200 : a.text))).toEqual(Array(5).fill(200));
    const kept = await seasonsOf(home);
    expect(sets.map((set) => set.map((s) => `${s.name} ${s.starts_on}`))).toContainEqual(kept);
  });

  it('replaces a home’s terms while blocks of it are added and removed: every write succeeds', async () => {
    const home = await newHome(ctx);
    const existing = await addBlock(ctx, home, day(120), day(121));
    const answers = await Promise.all([
      setTermsAnswer(home, { seasons: [{ name: 'S', starts_on: day(110), ends_on: day(140), nightly_price: '120' }] }),
      addBlock(ctx, home, day(122), day(123)),
      removeBlock(ctx, home, existing.json.id),
      setTermsAnswer(home, { seasons: [{ name: 'T', starts_on: day(111), ends_on: day(141), nightly_price: '130' }] }),
      addBlock(ctx, home, day(124), day(125)),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 201, 204, 200, 201]);
    expect((await seasonsOf(home)).length).toBe(1);
  });
});

describe.skipIf(!inject('databaseUrl'))('a staff block beside a booking’s transaction (PostgreSQL: two sessions)', () => {
  it('waits for the terms row, sees the booking committed meanwhile, and refuses the block (409 naming it)', async () => {
    const home = await newHome(ctx);
    const { id: listingId } = await ctx.api.db
      .selectFrom('listings')
      .select('id')
      .where('company_id', '=', ctx.company.id)
      .where('slug_en', '=', home)
      .executeTakeFirstOrThrow();
    const waiting = async () => {
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'
      `.execute(ctx.api.db);
      return rows[0]?.n ?? 0;
    };
    const reference = `B-${randomToken(10).toUpperCase()}`;
    let block: ReturnType<typeof addBlock> | undefined;
    // A booking's transaction as a booking request's locked path runs it: the terms row locked, the booking added; the
    // block is sent meanwhile (its read does not see the booking) and its write has to wait for the row.
    await ctx.api.db.transaction().execute(async (trx) => {
      await lockHomeCalendar(trx, listingId);
      await sql`
        insert into bookings (company_id, reference, listing_id, status, check_in, check_out, guests, quote, currency, total,
          deposit, stay_token_hash, consent_version, consent_at, hold_expires_at, caused_by)
        values (${ctx.company.id}, ${reference}, ${listingId}, 'held', ${day(90)}, ${day(93)}, 2, '{}'::jsonb, 'AED', 0, 0,
          ${await sha256(randomToken(32))}, 'v1', now(), now() + interval '1 day', 'website')
      `.execute(trx);
      block = addBlock(ctx, home, day(91), day(92));
      for (let i = 0; i < 250 && (await waiting()) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await waiting()).toBeGreaterThan(0);
    });
    const refused = await block!;
    expect(refused.status, refused.text).toBe(409);
    expect(refused.json.detail).toContain(reference);
    const blocks = await ctx.api.db.selectFrom('calendar_blocks').select('id').where('listing_id', '=', listingId).execute();
    expect(blocks).toEqual([]);
  });
});

describe('the exclusion constraint', () => {
  let listingId: string;

  beforeAll(async () => {
    const home = await newHome(ctx);
    const row = await ctx.api.db.selectFrom('listings').select('id').where('slug_en', '=', home).executeTakeFirstOrThrow();
    listingId = row.id;
  });

  /** A booking row written straight with SQL, past every check of the API. */
  async function insert(checkIn: string, checkOut: string, status = 'held') {
    const cancelled = status === 'cancelled' ? sql`now()` : sql`null`;
    await sql`
      insert into bookings (company_id, reference, listing_id, status, check_in, check_out, guests, quote, currency, total,
        deposit, stay_token_hash, consent_version, consent_at, hold_expires_at, caused_by, cancelled_at)
      values (${ctx.company.id}, ${`B-${randomToken(10).toUpperCase()}`}, ${listingId}, ${status}, ${checkIn}, ${checkOut}, 2,
        '{}'::jsonb, 'AED', 0, 0, ${await sha256(randomToken(32))}, 'v1', now(), now() + interval '1 day', 'admin', ${cancelled})
    `.execute(ctx.api.db);
  }

  const sqlState = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (error: { code?: string }) => error.code ?? String(error),
    );

  it('refuses a second booking sharing a night with SQLSTATE 23P01, whatever their statuses', async () => {
    await insert(day(10), day(15));
    for (const [checkIn, checkOut, status] of [
      [day(10), day(15), 'held'],
      [day(14), day(16), 'confirmed'],
      [day(5), day(11), 'paid'],
      [day(11), day(12), 'held'],
      [day(5), day(20), 'confirmed'],
    ] as const) {
      expect(await sqlState(insert(checkIn, checkOut, status)), `${checkIn}..${checkOut}`).toBe('23P01');
    }
  });

  it('lets a cancelled booking overlap, and back-to-back stays share a changeover day', async () => {
    await insert(day(30), day(35));
    expect(await sqlState(insert(day(30), day(35), 'cancelled'))).toBe('ok');
    expect(await sqlState(insert(day(31), day(33), 'cancelled'))).toBe('ok');
    expect(await sqlState(insert(day(35), day(38)))).toBe('ok');
    expect(await sqlState(insert(day(27), day(30), 'confirmed'))).toBe('ok');
    // Cancelling makes the nights free for a new booking.
    await sql`update bookings set status = 'cancelled', cancelled_at = now() where listing_id = ${listingId} and check_in = ${day(30)} and status = 'held'`.execute(
      ctx.api.db,
    );
    expect(await sqlState(insert(day(31), day(34), 'paid'))).toBe('ok');
  });

  it('keeps cancelled_at and the status together, and check_out after check_in', async () => {
    expect(await sqlState(insert(day(50), day(50)))).toBe('23514');
    await expect(
      sql`insert into bookings (company_id, reference, listing_id, status, check_in, check_out, guests, quote, currency, total,
        deposit, stay_token_hash, consent_version, consent_at, hold_expires_at, caused_by)
      values (${ctx.company.id}, 'B-XXXXXXXXXX', ${listingId}, 'cancelled', ${day(60)}, ${day(61)}, 2, '{}'::jsonb, 'AED', 0, 0,
        ${await sha256('x')}, 'v1', now(), now(), 'admin')`.execute(ctx.api.db),
    ).rejects.toMatchObject({ code: '23514' });
  });
});

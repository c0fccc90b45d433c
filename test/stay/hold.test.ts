import { sql } from 'kysely';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { holdStay, holdStayLocked } from '../../functions/stay/hold';
import { quoteOf, stayFacts } from '../../lib/stay/quote';
import { lockHomeCalendar } from '../../lib/calendar';
import { companyByHost } from '../../lib/tenancy';
import type { Company } from '../../schema/platform/db';
import { addBlock, countBookings, newHome, setTerms, stays, uniqueEmail, useStay } from './support';

/**
 * A booking's hold is one statement that writes only while the home's rules are as the stay's check read it
 * (functions/stay/hold.ts): a block, new terms or a changed listing since then make it write nothing, and the locked
 * path then checks the stay again; a booking since then matters only when it took some of the same nights (the
 * exclusion constraint). On PostgreSQL the statement also waits for a block's transaction that
 * holds the home's terms row, and sees the version that transaction committed, not its own older snapshot.
 */
const ctx = useStay();
let company: Company;
const nights = stays(120);

beforeAll(async () => {
  company = (await companyByHost(ctx.api.db, ctx.company.host))!;
});

const guest = (stay: { checkIn: string; checkOut: string }, email = uniqueEmail()) => ({
  ...stay,
  guests: 2,
  name: 'Held Guest',
  email,
  consentVersion: '2026-01',
  consentAddress: null,
});

/** The stay read and priced now, as a request does before its spam check. */
async function checked(home: string) {
  const [checkIn, checkOut] = nights();
  const stay = { checkIn, checkOut, guests: 2 };
  const now = new Date();
  const facts = await stayFacts(ctx.api.db, company, home, stay, now);
  return { stay, now, facts, quote: quoteOf(company, facts, stay, now) };
}

const people = (email: string) => ctx.api.db.selectFrom('contacts').select('id').where('email_key', '=', email).execute();

describe('the hold in one statement', () => {
  it('holds the stay while the calendar is as read', async () => {
    const home = await newHome(ctx);
    const { stay, now, facts, quote } = await checked(home);
    const held = await holdStay(ctx.api.db, company, facts, quote, guest(stay), 'website', now);
    expect(held?.booking.reference).toMatch(/^B-/);
    expect(await countBookings(ctx, home)).toBe(1);
  });

  it('still holds in one statement when another booking of other nights came first, and refuses the same nights', async () => {
    const home = await newHome(ctx);
    const first = await checked(home);
    const second = await checked(home);
    const other = await holdStay(ctx.api.db, company, second.facts, second.quote, guest(second.stay), 'website', second.now);
    expect(other).toBeDefined();
    expect(await holdStay(ctx.api.db, company, first.facts, first.quote, guest(first.stay), 'website', first.now)).toBeDefined();
    // The same nights as a hold written after the check: the exclusion constraint refuses them (23P01), writing nothing.
    const email = uniqueEmail();
    await expect(
      holdStay(ctx.api.db, company, first.facts, first.quote, guest(first.stay, email), 'website', first.now),
    ).rejects.toMatchObject({ code: '23P01' });
    expect(await people(email)).toEqual([]);
    expect(await countBookings(ctx, home)).toBe(2);
  });

  it('writes nothing, not even the guest, when a block took the nights since; the locked path refuses them', async () => {
    const home = await newHome(ctx);
    const { stay, now, facts, quote } = await checked(home);
    expect((await addBlock(ctx, home, stay.checkIn, stay.checkOut)).status).toBe(201);
    const email = uniqueEmail();
    expect(await holdStay(ctx.api.db, company, facts, quote, guest(stay, email), 'website', now)).toBeUndefined();
    expect(await countBookings(ctx, home)).toBe(0);
    expect(await people(email)).toEqual([]);
    await expect(
      holdStayLocked(ctx.api.db, company, facts.home.id, home, guest(stay, email), 'website', now),
    ).rejects.toMatchObject({ code: 'unavailable' });
    expect(await countBookings(ctx, home)).toBe(0);
  });

  it('writes nothing when the home’s terms changed since; the locked path applies the new ones', async () => {
    const home = await newHome(ctx);
    const { stay, now, facts, quote } = await checked(home);
    await setTerms(ctx, home, { min_nights: 10 });
    expect(await holdStay(ctx.api.db, company, facts, quote, guest(stay), 'website', now)).toBeUndefined();
    await expect(holdStayLocked(ctx.api.db, company, facts.home.id, home, guest(stay), 'website', now)).rejects.toMatchObject({
      code: 'min_nights',
    });
    expect(await countBookings(ctx, home)).toBe(0);
  });

  it('writes nothing when a season was added since; the locked path holds it at the season’s price', async () => {
    const home = await newHome(ctx, { price: '100.00' });
    const { stay, now, facts, quote } = await checked(home);
    // The same terms, and a season over the stay: only the seasons change.
    await setTerms(ctx, home, {
      seasons: [{ name: 'High', starts_on: stay.checkIn, ends_on: stay.checkOut, nightly_price: '300.00', weekend_price: null }],
    });
    expect(await holdStay(ctx.api.db, company, facts, quote, guest(stay), 'website', now)).toBeUndefined();
    const held = await holdStayLocked(ctx.api.db, company, facts.home.id, home, guest(stay), 'website', now);
    expect(held.quote.nights.map((n) => n.price)).toEqual(Array(3).fill('300.00'));
  });

  it('writes nothing when the listing’s nightly price changed since; the locked path holds it at the new price', async () => {
    const home = await newHome(ctx, { price: '100.00' });
    const { stay, now, facts, quote } = await checked(home);
    await ctx.api.db.updateTable('listings').set({ price: '250.00' }).where('id', '=', facts.home.id).execute();
    expect(await holdStay(ctx.api.db, company, facts, quote, guest(stay), 'website', now)).toBeUndefined();
    const held = await holdStayLocked(ctx.api.db, company, facts.home.id, home, guest(stay), 'website', now);
    expect(held.quote.nights.map((n) => n.price)).toEqual(Array(3).fill('250.00'));
  });
});

describe.skipIf(!inject('databaseUrl'))('the hold beside a block’s transaction (PostgreSQL: two sessions)', () => {
  it('waits for the terms row, then sees the block committed meanwhile and writes nothing', async () => {
    const home = await newHome(ctx);
    const { stay, now, facts, quote } = await checked(home);
    const waiting = async () => {
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'
      `.execute(ctx.api.db);
      return rows[0]?.n ?? 0;
    };
    const email = uniqueEmail();
    let hold: Promise<unknown> | undefined;
    // A staff block's transaction as the admin route runs it: the terms row locked, the block added; the hold is sent
    // meanwhile (its statement's snapshot is taken before the block commits) and has to wait for the row.
    await ctx.api.db.transaction().execute(async (trx) => {
      await lockHomeCalendar(trx, facts.home.id);
      await trx
        .insertInto('calendar_blocks')
        .values({
          company_id: company.id,
          listing_id: facts.home.id,
          reason: 'owner',
          starts_on: stay.checkIn,
          ends_on: stay.checkOut,
        })
        .execute();
      hold = holdStay(ctx.api.db, company, facts, quote, guest(stay, email), 'website', now);
      for (let i = 0; i < 250 && (await waiting()) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await waiting()).toBeGreaterThan(0);
    });
    expect(await hold).toBeUndefined();
    expect(await countBookings(ctx, home)).toBe(0);
    expect(await people(email)).toEqual([]);
  });
});

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../lib/db/index';
import { migrateToLatest } from '../../lib/db/migrate';
import { readSqlMigrations } from '../../lib/db/migrations-fs';
import { openTestDatabase } from '../support/harness';

/**
 * Migration 0041 on a database that booked bookings' payments and refunds before it (issue 34, days old): each gets
 * its owner's line, in booking order, on its own day, or on the first day of the company's first open month when its
 * own month is closed (here: a closing recorded for 2030-05, so the test does not hang on today's date); a home with
 * no owner, a refund not yet accepted and a rent-less nothing get none. The lines hold the payments' base (the card
 * fee passed on and the rounding stay with the company) and a refund of the whole charge takes back the base only.
 */
let handle: DatabaseHandle;
const ids = {
  closed: `pay_${'A'.repeat(24)}`,
  open: `pay_${'B'.repeat(24)}`,
  ownerless: `pay_${'C'.repeat(24)}`,
  refundClosed: `rfd_${'A'.repeat(24)}`,
  refundPending: `rfd_${'B'.repeat(24)}`,
};

beforeAll(async () => {
  handle = await openTestDatabase({ own: 'empty' });
  const migrations = await readSqlMigrations();
  await migrateToLatest(handle, Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0041')));
  await sql`
    with company as (
      insert into companies (name, environment, currency, time_zone)
      values ('Before 0041', 'production', 'AED', 'Asia/Dubai') returning id
    ), owner as (
      insert into contacts (company_id, reference, name) select id, 'P-BEFORE0041', 'Villa Owner' from company returning id
    ), homes as (
      insert into listings (company_id, slug_en, listing_type, status, title)
      select id, slug, 'holiday_home', 'published', '{"en": "A villa"}'::jsonb from company,
        (values ('owned-villa'), ('ownerless-villa')) as v (slug)
      returning id, slug_en
    ), upkeep as (
      insert into maintenance_homes (listing_id, company_id, owner_id)
      select homes.id, company.id, owner.id from homes, company, owner where homes.slug_en = 'owned-villa'
    ), closing as (
      insert into statement_closings (company_id, month, grace_days, recorded_at)
      select id, '2030-05-01', 5, now() from company
    ), account as (
      insert into payment_accounts (company_id, provider, currency, api_key_jwe, webhook_secret_jwe)
      select id, 'stripe', 'AED', 'sealed', 'sealed' from company returning id, company_id
    ), booked as (
      insert into bookings (company_id, reference, listing_id, status, check_in, check_out, guests, quote, currency, total,
        deposit, caused_by, hold_expires_at, consent_at, consent_version, stay_token_hash)
      select company.id, 'B-' || upper(left(md5(homes.slug_en), 10)), homes.id, 'confirmed', '2030-08-01',
        '2030-08-03', 2, '{}'::jsonb, 'AED', 1000, 0, 'website', now(), now(), 'v1', decode(md5(homes.slug_en), 'hex')
      from company, homes
      returning id, listing_id, reference
    ), paid as (
      insert into payments (id, company_id, account_id, provider, purpose, booking_id, status, amount, card_fee, rounding,
        currency, checkout_id, url, paid_at, booked_on, method)
      select p.id, account.company_id, account.id, 'stripe', 'booking_deposit', booked.id, p.status, p.amount, p.card_fee,
        p.rounding, 'AED', 'cs_' || p.id, 'https://checkout.stripe.com/' || p.id, p.booked_on::timestamptz, p.booked_on,
        'card'
      from account, booked join homes on homes.id = booked.listing_id,
        (values (${ids.closed}, 'owned-villa', 'refunded', 300.55::numeric, 7.33::numeric, 0::numeric, '2030-05-10'::date),
          (${ids.open}, 'owned-villa', 'succeeded', 700.45, 17.08, 0.02, '2030-07-03'),
          (${ids.ownerless}, 'ownerless-villa', 'succeeded', 250, 6.10, 0, '2030-05-12'))
          as p (id, slug, status, amount, card_fee, rounding, booked_on)
      where homes.slug_en = p.slug
      returning id, booking_id
    )
    insert into payment_refunds (id, company_id, payment_id, booking_id, amount, currency, reason, status, refunded_at,
      booked_on)
    select r.id, account.company_id, paid.id, paid.booking_id, r.amount, 'AED', 'policy', r.status, r.at, r.booked_on
    from account, paid,
      (values (${ids.refundClosed}, ${ids.closed}, 300.55::numeric, 'succeeded', '2030-05-20'::timestamptz, '2030-05-20'::date),
        (${ids.refundPending}, ${ids.open}, 100, 'pending', null, null)) as r (id, payment, amount, status, at, booked_on)
    where paid.id = r.payment
  `.execute(handle.db);
  await migrateToLatest(handle, migrations);
});
afterAll(() => handle.close());

describe('migration 0041 on bookings paid before it', () => {
  it('writes their lines to the home owner, on their day or the first open day after a closed month', async () => {
    const { rows } = await sql<{
      kind: string;
      day: string;
      amount: string;
      online_payment_id: string;
      refund_id: string | null;
      owner: string;
      home: string;
      method: string;
    }>`
      select l.kind, l.day::text as day, l.amount::text as amount, l.online_payment_id, l.refund_id, o.reference as owner,
        l.home, l.method
      from owner_statement_lines l join contacts o on o.id = l.owner_id order by l.id`.execute(handle.db);
    expect(rows.map((r) => [r.kind, r.day, r.amount, r.online_payment_id, r.refund_id, r.owner, r.home, r.method])).toEqual([
      // 300.55 − 7.33 card fee; 700.45 − 17.08 card fee − 0.02 rounding; the refund of all 300.55 returns the 293.22.
      ['booking_received', '2030-06-01', '293.2200', ids.closed, null, 'P-BEFORE0041', 'owned-villa', 'card'],
      ['booking_received', '2030-07-03', '683.3500', ids.open, null, 'P-BEFORE0041', 'owned-villa', 'card'],
      ['booking_refunded', '2030-06-01', '-293.2200', ids.closed, ids.refundClosed, 'P-BEFORE0041', 'owned-villa', 'card'],
    ]);
    const { rows: months } = await sql<{ month: string }>`
      select to_char(month, 'YYYY-MM') as month from owner_statements order by month`.execute(handle.db);
    expect(months.map((m) => m.month)).toEqual(['2030-06', '2030-07']);
  });
});

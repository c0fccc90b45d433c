import { sql } from 'kysely';
import type { Db } from '../../lib/db/index';
import { eventsCtes, newEventId } from '../../lib/events';
import { stamp } from '../../lib/clock';

/**
 * Scheduled work on live listings' advertising permits, each day of the company's time zone:
 *
 * - `listing.permit_expiring`, once per listing, permit and last day, when that day is within the company's
 *   `permit_reminder_days` (default 14), recorded in `listing_permit_reminders` (the listing itself is unchanged);
 * - `listing.permit_expired` the day after its last day, with the listing marked `permit_expired`: an update of the
 *   listing, so its rendered forms are rendered again and the catalogue's ETags change (the public permit says
 *   `expired`); the feeds that need a permit left it out from that day already.
 *
 * Each is a read of the due listings, then one statement that writes the marks guarded by the permit read (a permit
 * changed meanwhile is left alone) with one event per mark, so a concurrent run records nothing twice.
 */

/** Listings per statement of the scheduled work. */
const batchSize = 500;

export const defaultReminderDays = 14;

type Due = { id: string; company_id: string; slug_en: string; permit_number: string; expires_on: string };

/** The company's day at `now`, as SQL over a companies row `c`. */
const todayOf = (now: Date) => sql<string>`(${now}::timestamptz at time zone c.time_zone)::date`;

function dueListings(db: Db, now: Date, kind: 'expiring' | 'expired', listingId: string | undefined) {
  const today = todayOf(now);
  return db
    .selectFrom('listings as l')
    .innerJoin('companies as c', 'c.id', 'l.company_id')
    .select(['l.id', 'l.company_id', 'l.slug_en', 'l.permit_number', sql<string>`l.permit_expires_on::text`.as('expires_on')])
    .where('l.status', '=', 'published')
    .where('l.permit_number', 'is not', null)
    .where('l.permit_expired', '=', false)
    .$if(listingId !== undefined, (qb) => qb.where('l.id', '=', listingId as string))
    .$if(kind === 'expired', (qb) => qb.where(sql<boolean>`l.permit_expires_on < ${today}`))
    .$if(kind === 'expiring', (qb) =>
      qb
        .where(sql<boolean>`l.permit_expires_on >= ${today}`)
        .where(
          sql<boolean>`l.permit_expires_on <= ${today} + coalesce((c.settings->>'permit_reminder_days')::int, ${defaultReminderDays})`,
        )
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('listing_permit_reminders as r')
                .whereRef('r.listing_id', '=', 'l.id')
                .whereRef('r.permit_number', '=', 'l.permit_number')
                .whereRef('r.expires_on', '=', 'l.permit_expires_on'),
            ),
          ),
        ),
    )
    .orderBy('l.id')
    .limit(batchSize)
    .execute() as Promise<Due[]>;
}

/** The due listings as a statement's rows `v`, each with the id of the event it may record. */
function dueValues(due: readonly Due[]) {
  const column = <K extends keyof Due>(key: K) => due.map((row) => row[key]);
  return sql`select * from unnest(${column('id')}::uuid[], ${column('company_id')}::uuid[], ${column('slug_en')}::text[],
    ${column('permit_number')}::text[], ${column('expires_on')}::date[], ${due.map(() => newEventId())}::text[])
    as v (listing_id, company_id, slug, permit_number, expires_on, event_id)`;
}

const eventRows = (marked: string) => sql`select v.event_id as id, v.company_id,
    jsonb_build_object('listing_id', v.listing_id, 'permit_reference', v.permit_number) as data
  from ${sql.raw(marked)} m join v on v.listing_id = m.listing_id`;

async function remind(db: Db, now: Date, due: readonly Due[]): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    with v as (${dueValues(due)}),
    marked as (
      insert into listing_permit_reminders (listing_id, permit_number, expires_on, recorded_at)
      select v.listing_id, v.permit_number, v.expires_on, ${now}::timestamptz
        from v join listings l on l.id = v.listing_id and l.permit_number = v.permit_number
         and l.permit_expires_on = v.expires_on and l.status = 'published' and not l.permit_expired
      on conflict do nothing
      returning listing_id
    ),
    ${eventsCtes('reminded', { companyId: sql<string>`happening.company_id`, type: 'listing.permit_expiring', causedBy: 'system' }, eventRows('marked'))}
    select count(*) as n from marked`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

async function expire(db: Db, due: readonly Due[]): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    with v as (${dueValues(due)}),
    marked as (
      update listings l set permit_expired = true, updated_at = ${stamp}
        from v
       where l.id = v.listing_id and l.permit_number = v.permit_number and l.permit_expires_on = v.expires_on
         and l.status = 'published' and not l.permit_expired
      returning l.id as listing_id
    ),
    ${eventsCtes('expired', { companyId: sql<string>`happening.company_id`, type: 'listing.permit_expired', causedBy: 'system' }, eventRows('marked'))}
    select count(*) as n from marked`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/** One step of a kind of the permit work: the due listings read (a batch, or one listing), then marked. */
async function step(db: Db, now: Date, kind: 'expiring' | 'expired', listingId?: string) {
  const due = await dueListings(db, now, kind, listingId);
  if (due.length === 0) return { due: 0, marked: 0 };
  return { due: due.length, marked: kind === 'expired' ? await expire(db, due) : await remind(db, now, due) };
}

/** Runs one kind of the permit work until nothing is due; answers how many events it recorded. */
async function runUntilDone(db: Db, now: Date, kind: 'expiring' | 'expired'): Promise<number> {
  let recorded = 0;
  for (;;) {
    const { due, marked } = await step(db, now, kind);
    recorded += marked;
    if (due < batchSize || marked === 0) return recorded;
  }
}

export const remindExpiringPermits = (db: Db, now: Date) => runUntilDone(db, now, 'expiring');
export const expirePermits = (db: Db, now: Date) => runUntilDone(db, now, 'expired');

/** The permit work for one listing at `now`, when due (the test events' fixture): how many events it recorded. */
export const permitWorkFor = async (db: Db, now: Date, kind: 'expiring' | 'expired', listingId: string) =>
  (await step(db, now, kind, listingId)).marked;

import { addDays, todayIn } from '../../lib/dates';
import type { Trx } from '../../lib/db/index';
import type { Company } from '../../schema/platform/db';
import { stepBooking } from './bookings';
import { holdStay } from './hold';
import { quoteOf, stayFacts } from '../../lib/stay/quote';

/**
 * The demo company's holiday-home booking (issue 35): a guest's request for three nights two weeks from `now` of the
 * first published holiday home, confirmed and marked paid by staff through the same steps the admin API takes, so the
 * booking carries its tax invoice (lib/payments/booking-invoices.ts) and the month's journal its VAT. Runs inside the
 * seed's transaction, after the catalogue's.
 */
export async function seedStayDemo(trx: Trx, company: Company, now: Date): Promise<void> {
  const home = await trx
    .selectFrom('listings')
    .select('slug_en')
    .where('company_id', '=', company.id)
    .where('listing_type', '=', 'holiday_home')
    .where('status', '=', 'published')
    .orderBy('slug_en')
    .executeTakeFirstOrThrow();
  const checkIn = addDays(todayIn(company.time_zone, now), 14);
  const stay = { checkIn, checkOut: addDays(checkIn, 3), guests: 2 };
  const facts = await stayFacts(trx, company, home.slug_en, stay, now);
  const quote = quoteOf(company, facts, stay, now);
  const guest = {
    ...stay,
    name: 'Layla Demo',
    email: 'layla.demo@example.com',
    language: 'en',
    message: 'Arriving late in the evening.',
    consentVersion: '2026-01',
    consentAddress: null,
  };
  const held = await holdStay(trx, company, facts, quote, guest, 'website', now);
  if (!held) throw new Error('the demo booking could not be held');
  await stepBooking(trx, company.id, held.booking.reference, 'confirm', 'admin', now);
  await stepBooking(trx, company.id, held.booking.reference, 'mark_paid', 'admin', now);
}

import { addDays, todayIn } from '../lib/dates';
import { ApiError } from '../lib/errors';
import type { TriggerContext, TriggerTable } from '../lib/event-triggers';
import { quoteOf, stayFacts } from '../lib/stay/quote';
import { readGuestForm } from '../schema/stay/guests';
import { demoCatalogueOn } from './catalogue/demo';
import { importCatalogue } from './catalogue/content';
import { registerGuests, registrationRequired } from './stay/guests';
import { holdStay } from './stay/hold';
import { changeBooking } from './stay/reservations';

/**
 * Fixtures of `events trigger` (issue 38) for the stay types; functions/triggers.ts lays them over its table. Each run
 * makes its own holiday home (cloned from the demo catalogue, its slugs and permit suffixed with the run's token) and a
 * stay held there as a visitor's request holds it, then the operation of the type, in the trigger's transaction: the
 * company's own homes and bookings are never touched.
 */

const today = (t: TriggerContext) => todayIn(t.company.time_zone, t.now);

/** A holiday home of the run, cloned from the demo catalogue: its id. */
async function homeOfRun(t: TriggerContext): Promise<{ id: string; slug: string }> {
  const doc = demoCatalogueOn(today(t));
  const source = doc.listings.find((l) => l.listing_type === 'holiday_home' && l.status === 'published');
  if (!source) throw new Error('the demo catalogue has no published holiday home');
  const slug = { en: `${source.slug.en}-t${t.token}`, ar: `${source.slug.ar}-t${t.token}` };
  const permit = source.permit ? { ...source.permit, number: `${source.permit.number}${t.token}`.slice(0, 50) } : source.permit;
  await importCatalogue(t.trx, t.company, { ...doc, listings: [{ ...source, slug, permit }] }, { render: null, now: t.now });
  const row = await t.trx
    .selectFrom('listings')
    .select('id')
    .where('company_id', '=', t.company.id)
    .where('slug_en', '=', slug.en)
    .executeTakeFirstOrThrow();
  return { id: row.id, slug: slug.en };
}

/** A stay of 3 nights for 2 a month ahead at a home of the run, held as a visitor's request (`booking.requested`). */
async function heldStay(t: TriggerContext) {
  const home = await homeOfRun(t);
  const checkIn = addDays(today(t), 30);
  const stay = { checkIn, checkOut: addDays(checkIn, 3), guests: 2 };
  const facts = await stayFacts(t.trx, t.company, home.slug, stay, t.now);
  const quote = quoteOf(t.company, facts, stay, t.now);
  const guest = { ...stay, name: `Test guest ${t.token}`, email: `guest.${t.token}@example.com`, language: 'en' };
  const consent = { consentVersion: 'trigger', consentAddress: null };
  const held = await holdStay(t.trx, t.company, facts, quote, { ...guest, ...consent }, 'website', t.now);
  if (!held) throw new Error('the test stay could not be held');
  return { id: held.booking.id, reference: held.booking.reference, listing_id: home.id, guests: stay.guests };
}

/** `booking.changed`: the held stay's guests changed, as an integration's `PATCH /bookings/{reference}` does. */
async function bookingChanged(t: TriggerContext) {
  const { reference } = await heldStay(t);
  await changeBooking(t.trx, t.company, reference, { guests: 1 }, 'admin', t.now, undefined);
}

/**
 * `booking.guests_registered`: the held stay's guest registered, as the stay page's form does. Only a company in Dubai
 * registers guests (DET's rule; settings `market`): elsewhere the stay page has no form and nothing emits it, so the
 * fixture answers 409 and makes nothing.
 */
async function guestsRegistered(t: TriggerContext) {
  if (!registrationRequired(t.company.settings)) {
    throw new ApiError(
      'conflict',
      'booking.guests_registered is made only in a company whose market is dubai (settings `market`): Dubai’s DET registration is the only one, and this company’s stay pages take none.',
    );
  }
  const booking = await heldStay(t);
  const form = {
    'guests[0].name': `Test guest ${t.token}`,
    'guests[0].nationality': 'GB',
    'guests[0].document_type': 'passport',
    'guests[0].document_number': `T${t.token.toUpperCase()}`.slice(0, 9),
    'guests[0].birth_date': '1990-01-01',
    consent: 'yes',
  };
  const { guests, problems } = readGuestForm(form, { guests: booking.guests, today: today(t) });
  if (problems.length > 0) throw new Error(`the test guest was refused: ${JSON.stringify(problems)}`);
  const input = { companyId: t.company.id, booking, guests, keyring: t.keyring };
  if (!(await registerGuests(t.db, input, today(t), t.now))) throw new Error('the test stay took no registration');
}

export const stayTriggers: Partial<TriggerTable> = {
  'booking.changed': { steps: bookingChanged },
  'booking.guests_registered': { steps: guestsRegistered },
};

import { ApiError } from '../lib/errors';
import type { TriggerContext, TriggerTable } from '../lib/event-triggers';
import { readGuestForm } from '../schema/stay/guests';
import { registerGuests, registrationRequired } from './stay/guests';
import { changeBooking } from './stay/reservations';
import { heldStay, today } from './triggers-support';

/**
 * Fixtures of `events trigger` (issue 38) for the stay types; functions/triggers.ts composes its table of them (each type defined once). Each run
 * makes its own holiday home (cloned from the demo catalogue, its slugs and permit suffixed with the run's token) and a
 * stay held there as a visitor's request holds it, then the operation of the type, in the trigger's transaction: the
 * company's own homes and bookings are never touched.
 */

/** A stay of 3 nights for 2 a month ahead at a home of the run, held as a visitor's request (`booking.requested`). */
async function requested(t: TriggerContext) {
  const held = await heldStay(t);
  return { id: held.booking.id, reference: held.booking.reference, listing_id: held.home.id, guests: held.guests };
}

/** `booking.changed`: the held stay's guests changed, as an integration's `PATCH /bookings/{reference}` does. */
async function bookingChanged(t: TriggerContext) {
  const { reference } = await requested(t);
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
  const booking = await requested(t);
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

export const stayTriggers = {
  'booking.changed': { steps: bookingChanged },
  'booking.guests_registered': { steps: guestsRegistered },
} satisfies Partial<TriggerTable>;

import type { Context } from 'hono';
import { requireLeadType } from '../../lib/access';
import { actorOf } from '../../lib/audit';
import { randomToken } from '../../lib/crypto';
import { isUniqueViolation } from '../../lib/db/index';
import type { AppEnv } from '../../lib/env';
import { ApiError } from '../../lib/errors';
import { passesFormGuard } from '../../lib/form-guard';
import { newReference } from '../../lib/references';
import { withoutCardNumbers } from '../../schema/common/card-numbers';
import type { BookingRequestValue } from '../../schema/stay/bookings';
import { defaultHoldHours, isOverlap, type NewBooking } from './bookings';
import { presentBookingAnswer } from './bookings.present';
import { holdStay, holdStayLocked } from './hold';
import { quoteOf, stayFacts } from '../../lib/stay/quote';

/**
 * A visitor's booking request (`POST /bookings`), by the services' clock: the stay read in one statement, checked and
 * priced (a date mistake is refused before the spam check, so the visitor's token is not used up), the form guard,
 * then the hold in one statement while the home's rules are as read; else (or on a concurrent add of the same guest)
 * the locked path checks the stay again under the home's lock (hold.ts). A filled hidden field is answered like a
 * success, for a hold that does not exist.
 */
export async function requestBooking(c: Context<AppEnv>, body: BookingRequestValue) {
  const { challenge, website, ...input } = body;
  const { db, clientAddress } = c.var.services;
  const { company, caller } = c.var;
  requireLeadType(caller, 'booking');
  const now = c.var.services.now();
  const stay = { checkIn: input.check_in, checkOut: input.check_out, guests: input.guests };
  const facts = await stayFacts(db, company, input.listing, stay, now);
  const quote = quoteOf(company, facts, stay, now);
  const origin = new URL(c.req.url).origin;
  const asked = { listing: facts.home.slug, check_in: input.check_in, check_out: input.check_out, guests: input.guests };
  if (!(await passesFormGuard(c, { challenge, website }))) {
    const holdHours = company.settings.booking_hold_hours ?? defaultHoldHours;
    const booking = { reference: newReference('B'), hold_expires_at: new Date(now.getTime() + holdHours * 3_600_000) };
    return presentBookingAnswer(origin, asked, { booking, token: randomToken(32), quote });
  }
  const guest: NewBooking = {
    ...stay,
    // A card number in the guest's name is removed (one in the message is refused: schema/stay/bookings.ts).
    name: withoutCardNumbers(input.name),
    email: input.email,
    phone: input.phone,
    message: input.message,
    language: input.language,
    consentVersion: input.consent_version,
    consentAddress: clientAddress,
  };
  const causedBy = actorOf(caller);
  const fast = await holdStay(db, company, facts, quote, guest, causedBy, now).catch((error: unknown) => {
    if (isUniqueViolation(error)) return undefined;
    if (isOverlap(error)) throw new ApiError('unavailable', 'Some of these nights were just taken by another request.');
    throw error;
  });
  const held = fast ? { ...fast, quote } : await holdStayLocked(db, company, facts.home.id, input.listing, guest, causedBy, now);
  return presentBookingAnswer(origin, asked, held);
}

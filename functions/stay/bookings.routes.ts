import { defineRoute, requireLeadType } from '../../lib/access';
import { createRouter } from '../../lib/app';
import { actorOf } from '../../lib/audit';
import { randomToken } from '../../lib/crypto';
import { newReference } from '../../lib/references';
import { BookingAnswer, BookingInput } from '../../schema/stay/bookings';
import { json, jsonBody, problem } from '../../schema/common/api';
import { passesFormGuard } from '../../lib/form-guard';
import { defaultHoldHours, isOverlap, type NewBooking } from './bookings';
import { holdStay, holdStayLocked, quoteOf, stayFacts } from './hold';
import { isUniqueViolation } from '../../lib/db/index';
import { ApiError } from '../../lib/errors';
import { iso } from '../../lib/dates';

const route = defineRoute({
  method: 'post',
  path: '/bookings',
  tags: ['Bookings'],
  summary: 'Request a booking of a holiday home',
  description:
    "From the visitor's browser with a publishable key allowed to send `booking`, from one of the key's origins, with the spam check. Nothing is charged: the dates are held while staff confirm. Payment details and identity documents are refused.",
  access: { kind: 'form', scopes: [] },
  request: { body: jsonBody(BookingInput) },
  responses: {
    201: json(BookingAnswer, 'The dates are held. The answer gives the reference and the stay page (its address is shown once).'),
    403: problem(
      'Key unknown, revoked or of another company, a server key (`key_wrong_kind`), origin not on the key (`origin_not_allowed`), `booking` not on the key (`lead_type_not_allowed`), spam check failed (`challenge_failed`).',
    ),
    404: problem('Unknown home, or bookings are switched off.'),
    503: problem('The spam check could not be asked (`spam_check_unavailable`); nothing was recorded.'),
  },
});

export const bookingRequests = createRouter().openapi(route, async (c) => {
  const { challenge, website, ...input } = c.req.valid('json');
  const { db, clientAddress } = c.var.services;
  const { company, caller } = c.var;
  requireLeadType(caller, 'booking');
  const now = new Date();
  const stay = { checkIn: input.check_in, checkOut: input.check_out, guests: input.guests };
  // One statement reads what the stay needs; dates the home cannot take are refused before the spam check, so the
  // visitor's token is not used up.
  const facts = await stayFacts(db, company, input.listing, stay, now);
  const quote = quoteOf(company, facts, stay, now);
  const stayUrl = (token: string) => `${new URL(c.req.url).origin}/stay/${token}`;
  const answer = { listing: facts.home.slug, check_in: input.check_in, check_out: input.check_out, guests: input.guests };
  if (!(await passesFormGuard(c, { challenge, website }))) {
    // The hidden field was filled: answered like a success, for a hold that does not exist.
    const holdHours = company.settings.booking_hold_hours ?? defaultHoldHours;
    return c.json(
      {
        reference: newReference('B'),
        status: 'held' as const,
        ...answer,
        hold_expires_at: iso(now.getTime() + holdHours * 3_600_000),
        stay_url: stayUrl(randomToken(32)),
        quote: { ...answer, ...quote },
      },
      201,
    );
  }
  const guest: NewBooking = {
    ...stay,
    name: input.name,
    email: input.email,
    phone: input.phone,
    message: input.message,
    language: input.language,
    consentVersion: input.consent_version,
    consentAddress: clientAddress,
  };
  const causedBy = actorOf(caller);
  // The hold in one statement while the home's rules are as read; else (or on a concurrent add of the same guest) the
  // locked path checks the stay again under the home's lock (functions/stay/hold.ts).
  const fast = await holdStay(db, company, facts, quote, guest, causedBy, now).catch((error: unknown) => {
    if (isUniqueViolation(error)) return undefined;
    if (isOverlap(error)) throw new ApiError('unavailable', 'Some of these nights were just taken by another request.');
    throw error;
  });
  const held = fast ? { ...fast, quote } : await holdStayLocked(db, company, facts.home.id, input.listing, guest, causedBy, now);
  return c.json(
    {
      reference: held.booking.reference,
      status: 'held' as const,
      ...answer,
      hold_expires_at: iso(held.booking.hold_expires_at),
      stay_url: stayUrl(held.token),
      quote: { ...answer, ...held.quote },
    },
    201,
  );
});

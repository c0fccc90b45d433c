import { iso } from '../../lib/dates';
import { amountShown } from '../../lib/money';
import type { BookingRow, TaxedQuote } from '../../schema/stay/db';

/** A booking row with what its presentation joins: the home's English slug and the guest's reference. */
export type ShownBookingRow = BookingRow & { listing_slug: string; person_reference: string | null };

/** A stored amount with the currency's minor digits, as the guest's quote writes it (lib/money.ts). */
const amount = amountShown;

/** A booking as staff see it (the admin API). */
export function presentAdminBooking(booking: ShownBookingRow) {
  return {
    reference: booking.reference,
    status: booking.status,
    listing: booking.listing_slug,
    listing_id: booking.listing_id,
    person: booking.person_reference ?? null,
    sent: { name: booking.sent_name, email: booking.sent_email, phone: booking.sent_phone },
    check_in: booking.check_in,
    check_out: booking.check_out,
    guests: booking.guests,
    language: booking.language,
    message: booking.message,
    quote: booking.quote,
    total: amount(booking.total, booking.currency),
    // Kept in the quote when the booking was requested (issue 35); none on older bookings.
    tax: booking.quote.tax ?? null,
    deposit: amount(booking.deposit, booking.currency),
    currency: booking.currency,
    hold_expires_at: iso(booking.hold_expires_at),
    confirmed_at: iso(booking.confirmed_at),
    payment_due_at: iso(booking.payment_due_at),
    paid_at: iso(booking.paid_at),
    cancelled_at: iso(booking.cancelled_at),
    cancel_reason: booking.cancel_reason,
    payment_terms: {
      booking_deposit: amount(booking.booking_deposit, booking.currency),
      balance_due_days: booking.balance_due_days,
      deposit_confirms: booking.deposit_confirms,
      free_cancellation_days: booking.free_cancellation_days,
      late_cancellation_refund_percent: booking.late_cancellation_refund_percent,
    },
    balance_due_at: iso(booking.balance_due_at),
    consent: { version: booking.consent_version, at: iso(booking.consent_at), address: booking.consent_address },
    caused_by: booking.caused_by,
    created_at: iso(booking.created_at),
    updated_at: iso(booking.updated_at),
  };
}

/** The answer to a booking request: the reference, the hold, the stay page's address (shown once) and the quote. */
export function presentBookingAnswer(
  origin: string,
  asked: { listing: string; check_in: string; check_out: string; guests: number },
  held: { booking: { reference: string; hold_expires_at: Date }; token: string; quote: TaxedQuote },
) {
  return {
    reference: held.booking.reference,
    status: 'held' as const,
    ...asked,
    hold_expires_at: iso(held.booking.hold_expires_at),
    stay_url: `${origin}/stay/${held.token}`,
    quote: { ...asked, ...held.quote },
  };
}

/** A booking as an integration sees it (issue 37): staff's view, with the channel a booking taken elsewhere came from. */
export function presentReservation(booking: ShownBookingRow) {
  return { ...presentAdminBooking(booking), channel: booking.channel, channel_reference: booking.channel_reference };
}

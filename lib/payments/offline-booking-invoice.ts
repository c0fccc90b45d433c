import { sql } from 'kysely';
import { paidSql } from '../bookings';
import { todayIn } from '../dates';
import type { CausedBy } from '../events';
import { fromMinorUnits, minorUnits } from '../money';
import { type HomeAddressParts, homeAddressJson, issueCtes, type NotIssued, type Prepared } from '../invoices';
import type { CompanySettings } from '../../schema/platform/db';
import type { BookingRow } from '../../schema/stay/db';
import { bookingSupplyInvoice } from './booking-invoices';

/**
 * The tax invoice of a booking staff mark paid (issue 35, migration 0051; docs/api-reference.md, "Tax invoices and
 * credit notes", "Bookings"): the guest paid what was left outside the API (cash, a transfer, a card machine).
 */

/** What staff's `mark_paid` reads for the booking's tax invoice, over the booking `b` ({@link offlineBookingColumns}). */
export type OfflineBookingRead = {
  company_name: string;
  company_settings: CompanySettings;
  company_time_zone: string;
  /** The bases of the booking's payments received online (succeeded or refunded), added up. */
  booking_paid_before: string;
  booking_home: HomeAddressParts | null;
};

/** The columns of {@link OfflineBookingRead} over a booking `b`. */
export const offlineBookingColumns = [
  sql<string>`(select c.name from companies c where c.id = b.company_id)`.as('company_name'),
  sql<CompanySettings>`(select c.settings from companies c where c.id = b.company_id)`.as('company_settings'),
  sql<string>`(select c.time_zone from companies c where c.id = b.company_id)`.as('company_time_zone'),
  sql<string>`${paidSql(sql.ref('b.id'))}::text`.as('booking_paid_before'),
  sql<HomeAddressParts | null>`${homeAddressJson(sql`b.listing_id`)}`.as('booking_home'),
] as const;

/**
 * The tax invoice of what is left to pay of a booking staff mark paid at `now` (its total and refundable deposit less
 * what the guest paid online): the tax point is the payment's receipt, which staff record (Federal Decree-Law No. 8 of
 * 2017, Article 26), on the company's day of `now`; its means not known (UNCL4461 1). Null when nothing is left to
 * pay; {@link NotIssued} as {@link bookingInvoice}.
 */
export function offlineBookingInvoice(
  booking: Pick<BookingRow, 'id' | 'reference' | 'check_in' | 'check_out' | 'total' | 'deposit' | 'quote' | 'currency'> &
    OfflineBookingRead,
  now: Date,
): Prepared | NotIssued | null {
  const { currency } = booking;
  const minor = (amount: string) => minorUnits(amount, currency);
  const left = minor(booking.total) + minor(booking.deposit) - minor(booking.booking_paid_before);
  if (left <= 0) return null;
  return bookingSupplyInvoice({
    company: { name: booking.company_name, settings: booking.company_settings },
    quote: booking.quote,
    reference: booking.reference,
    checkIn: String(booking.check_in),
    checkOut: String(booking.check_out),
    home: booking.booking_home,
    paidBefore: booking.booking_paid_before,
    amount: fromMinorUnits(left, currency),
    extra: '0',
    currency,
    note: `Payment of booking ${booking.reference} recorded by staff.`,
    payment: { code: '1' },
    day: todayIn(booking.company_time_zone, now),
  });
}

/** The CTEs issuing {@link offlineBookingInvoice} when the CTE `source` (the booking marked paid) has its row. */
export function offlineBookingInvoiceCtes(
  companyId: string,
  booking: Parameters<typeof offlineBookingInvoice>[0],
  now: Date,
  causedBy: CausedBy,
) {
  const prepared = offlineBookingInvoice(booking, now);
  if (!prepared?.issued) return [];
  const source = { kind: 'booking_offline', key: booking.reference } as const;
  return [issueCtes('invoice', 'changed', { companyId, kind: 'invoice', prepared, source, bookingId: booking.id, causedBy })];
}

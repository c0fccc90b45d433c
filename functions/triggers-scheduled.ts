import { sha256 } from '../lib/crypto';
import { ApiError } from '../lib/errors';
import { addDays } from '../lib/dates';
import { einvoiceWarningAfterDays, warnDueEinvoices } from '../lib/einvoice/handoff';
import type { TriggerContext, TriggerTable } from '../lib/event-triggers';
import { bookingForPayment, payBooking } from '../lib/payments/bookings';
import { refundBooking } from '../lib/payments/refunds';
import { settleWebhook } from '../lib/payments/settle';
import { testModeProvider } from '../lib/payments/test-mode';
import { escalateLead } from './crm/escalation';
import { stepBooking } from './stay/bookings';
import { checkSavedSearch } from './forms/saved-search-matches';
import { announceOverdue, lastDueOn } from './leases/overdue';
import { permitWorkFor } from './portals/permits';
import { readFeedText } from './stay/calendar-feeds';
import { insertImport } from './stay/calendar-imports';
import { failuresAnnounced, recordLoaded, type SyncTarget } from './stay/calendar-sync-record';
import { HomeTermsInput } from '../schema/common/homes';
import {
  activeLease,
  admin,
  enquiry,
  type HomeOptions,
  heldStay,
  importHome,
  receivedPayment,
  savedSearch,
  stepSavedSearch,
  steps,
  today,
} from './triggers-support';

/**
 * Fixtures of `events trigger` (issue 38) for the types made by scheduled work, by the payment provider's answer and by
 * a calendar's sync; functions/triggers.ts composes its table of them (each type defined once). Each makes its own records in the state that is
 * due and runs the job's own step for them only (docs/api-reference.md, "Test events"): no other record is touched.
 */

/** An enquiry of the run, escalated by the escalation job's step as if the company's answer time had passed. */
async function escalated(t: TriggerContext) {
  await escalateLead(t.trx, t.now, (await enquiry(t)).id);
}

/** An active lease whose first cheque fell due on the last day that is overdue today; the overdue job's step for it. */
async function overdue(t: TriggerContext) {
  const lease = await activeLease(t, { start: lastDueOn(t.company, t.now) });
  await announceOverdue(t.trx, t.company, t.now, { leaseId: lease.id });
}

/** A home whose permit's last day is today (within any reminder days); the reminder step for it. */
async function permitExpiring(t: TriggerContext) {
  const { id } = await importHome(t, 'sale', { permitEndsOn: today(t) });
  await permitWorkFor(t.db, t.now, 'expiring', id);
}

/** A home imported yesterday with that day as its permit's last (so not expired then); today's expiry step for it. */
async function permitExpired(t: TriggerContext) {
  const yesterday = new Date(t.now.getTime() - 86_400_000);
  const { id } = await importHome(t, 'sale', { at: yesterday, permitEndsOn: today(t, yesterday) });
  await permitWorkFor(t.db, t.now, 'expired', id);
}

/**
 * A visitor's confirmed search for homes for sale, checked once (what the catalogue has is recorded, unannounced, as
 * the job's first check does); then a new home for sale and the search's next check, which announces it.
 */
async function matched(t: TriggerContext) {
  const id = await savedSearch(t);
  await stepSavedSearch(t, id, 'active');
  await checkSavedSearch(t.db, t.company, id, t.now);
  await importHome(t, 'sale');
  await checkSavedSearch(t.db, t.company, id, t.now);
}

/** A holiday home of the run with an import of its channel's calendar (never fetched: its address is the run's own). */
async function calendarImport(t: TriggerContext): Promise<SyncTarget & { slug: string }> {
  const home = await importHome(t, 'holiday_home');
  const input = { url: `https://calendar.example.com/t${t.token}.ics`, channel: 'test', interval_minutes: 10 };
  const row = await insertImport(t.trx, t.keyring, { companyId: t.company.id, listingId: home.id }, input, t.now);
  return { ...row, time_zone: t.company.time_zone, environment: t.company.environment, slug: home.slug };
}

/** An import whose feed failed as many times in a row as announce it: each failure recorded as a sync records it. */
async function importFailed(t: TriggerContext) {
  const target = await calendarImport(t);
  const error = 'fetch_failed: A test event’s failure (the feed was not fetched).';
  for (let n = 0; n < failuresAnnounced; n++) await recordLoaded(t.db, target, { kind: 'failed', error }, t.now, true);
}

/** A stay held at the import's home, then the channel's feed (a text of the run) blocking its nights, recorded. */
async function conflict(t: TriggerContext) {
  const target = await calendarImport(t);
  const stay = await heldStay(t, { home: target });
  const compact = (day: string) => day.replaceAll('-', '');
  const text = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Property API//Test events//EN',
    'BEGIN:VEVENT',
    `UID:t${t.token}@calendar.example.com`,
    `DTSTART;VALUE=DATE:${compact(stay.checkIn)}`,
    `DTEND;VALUE=DATE:${compact(addDays(stay.checkIn, 2))}`,
    'SUMMARY:Reserved',
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
  const validators = { etag: null, last_modified: null };
  const loaded = await readFeedText(undefined, { text, time_zone: target.time_zone, validators }, t.now);
  await recordLoaded(t.db, target, loaded, t.now, true);
}

/**
 * A stay of the run, confirmed, paid through the company's account for its currency with the provider in test mode
 * (lib/payments/test-mode.ts): the guest's checkout (POST /stay/{token}/payment), then the provider's delivery settled
 * as every delivery is (lib/payments/settle.ts), the checkout read back with `outcome`. No account: 409, nothing kept.
 * With `terms`, the home's booking terms: what is due now is then the deposit they ask, if any (lib/bookings.ts dueNow).
 */
async function paidStay(t: TriggerContext, outcome: 'succeeded' | 'failed', terms?: HomeOptions['booking']) {
  const held = await heldStay(t, { home: await importHome(t, 'holiday_home', { booking: terms }) });
  await stepBooking(t.db, t.company.id, held.booking.reference, 'confirm', admin, t.now);
  const testMode = testModeProvider(outcome, t.token, t.now);
  const ctx = { db: t.db, keyring: t.keyring, now: t.now, companyId: t.company.id, testMode };
  const read = await bookingForPayment(ctx, await sha256(held.token));
  if (!read) throw new Error('the test stay was not found by its token');
  await payBooking(ctx, read, `https://www.example.com/stay/t${t.token}`);
  const delivery = JSON.stringify({ id: `evt_test_${t.token}`, checkout: `cs_test_${t.token}` });
  await settleWebhook({ ...ctx, timeZone: t.company.time_zone }, read.account?.id ?? '', delivery, new Headers());
  return { ctx, bookingId: held.booking.id, reference: held.booking.reference };
}

/** A stay paid (as {@link paidStay}), cancelled by staff, its refund decided by its policy and accepted in test mode. */
async function refunded(t: TriggerContext) {
  const { ctx, bookingId, reference } = await paidStay(t, 'succeeded');
  await stepBooking(t.db, t.company.id, reference, 'cancel', admin, t.now);
  await refundBooking(ctx, bookingId);
}

/**
 * A stay at a home whose terms ask a deposit of 30% (a booking deposit, lib/bookings.ts), confirmed, its deposit paid as
 * {@link paidStay} pays: the settlement of a deposit that leaves a balance makes that balance due (`booking.balance_due`).
 */
const depositPaid = (t: TriggerContext) => paidStay(t, 'succeeded', HomeTermsInput.parse({ booking_deposit_percent: 30 }));

/**
 * A rent receipt's tax invoice, issued today (as `invoice.issued`'s fixture: a taxable lease, the company registered
 * for VAT), then the warning's step (lib/einvoice/handoff.ts) for that document only, run with its clock at the
 * document's warning day (its issue date plus 11 days: the deadline's 14 less the warning's 3), when it is due.
 */
async function einvoiceDue(t: TriggerContext) {
  const payment = await receivedPayment(t, { taxable: true });
  const document = await t.trx
    .selectFrom('tax_documents')
    .select('id')
    .where('company_id', '=', t.company.id)
    .where('kind', '=', 'invoice')
    .where('source_kind', '=', 'rent_payment')
    .where('source_key', '=', payment)
    .executeTakeFirst();
  if (!document) throw new ApiError('conflict', 'A rent receipt issued no tax invoice: this company is not registered for VAT.');
  const warningDay = new Date(t.now.getTime() + einvoiceWarningAfterDays * 86_400_000);
  await warnDueEinvoices(t.db, warningDay, { documentId: document.id });
}

export const scheduledTriggers = {
  'owner_statement.ready': {
    unavailable:
      'an owner’s statement is ready only once its month has closed (the company’s statement_grace_days after its end), and every statement line is dated the day its operation runs (a receipt’s booked_on, a charge’s, a reversal’s): a fixture’s owner has lines only in the month still open, no operation records one in a closed month (what was closed never changes), and closing the open month early would close it for every owner of the company.',
  },
  'booking.balance_due': steps(depositPaid),
  'invoice.einvoice_due': steps(einvoiceDue),
  'lead.escalated': steps(escalated),
  'rent_payment.overdue': steps(overdue),
  'listing.permit_expiring': steps(permitExpiring),
  'listing.permit_expired': steps(permitExpired),
  'saved_search.matched': steps(matched),
  'calendar_import.failed': steps(importFailed),
  'calendar.conflict': steps(conflict),
  'payment.succeeded': steps((t) => paidStay(t, 'succeeded')),
  'payment.failed': steps((t) => paidStay(t, 'failed')),
  'payment.refunded': steps(refunded),
  'booking.refunded': steps(refunded),
} satisfies Partial<TriggerTable>;

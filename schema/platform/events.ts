import { z } from '@hono/zod-openapi';

/**
 * The event catalogue: every kind of event of the spec's "Kinds of event" table, named exactly as there, with
 * the `data` it carries (ids and references only, never record content), plus `ping`, the test event an
 * operator sends. The OpenAPI document's `webhooks` section and subscription validation both come from here.
 */

const ref = (description: string) => z.string().openapi({ description });
const referenceOnly = (record: string, name: string) =>
  z.object({ reference: ref(`The ${record}'s reference; read the record with a server key.`) }).openapi(name);

const LeadEventData = referenceOnly('lead', 'LeadEventData');
const ContactEventData = referenceOnly('contact', 'ContactEventData');
const ActivityEventData = referenceOnly('activity', 'ActivityEventData');
const TaskEventData = z.object({ task_id: ref('The task id.') }).openapi('TaskEventData');
const BookingEventData = z
  .object({
    booking_id: ref('The booking id.'),
    reference: ref('The booking reference.'),
    listing_id: ref('The holiday home (listing) id, so a website can refresh its calendar.'),
  })
  .openapi('BookingEventData', { description: 'Never guest data.' });
const LeaseEventData = referenceOnly('lease', 'LeaseEventData');
const RentPaymentEventData = z
  .object({ payment_id: ref('The payment id.'), lease_reference: ref('The lease the payment belongs to.') })
  .openapi('RentPaymentEventData');
const RentMandateEventData = z
  .object({ mandate_id: ref('The mandate id.'), lease_reference: ref('The lease the mandate belongs to.') })
  .openapi('RentMandateEventData', { description: 'Ids only: never the account holder, the bank account or amounts.' });
const JobEventData = referenceOnly('maintenance job', 'JobEventData');
const JobChargeEventData = z
  .object({ charge_id: ref('The charge id.'), job_reference: ref('The job the charge belongs to.') })
  .openapi('JobChargeEventData');
const OwnerStatementEventData = z
  .object({
    owner_reference: ref('The owner’s contact reference: read GET /owner-statements?owner=…&month=… with a server key.'),
    month: ref('The month, YYYY-MM: with the owner, the statement’s key.'),
  })
  .openapi('OwnerStatementEventData', { description: 'Only the owner’s reference and the month: never amounts or names.' });
const TaxDocumentEventData = z
  .object({
    invoice_id: ref('The invoice’s id (its UUID, PINT AE BTAE-07).'),
    reference: ref('Its number (`INV-…`): read GET /invoices/{number} with a server key.'),
  })
  .openapi('TaxDocumentEventData', { description: 'Ids only: never amounts, parties or lines.' });
const CreditNoteEventData = z
  .object({
    credit_note_id: ref('The credit note’s id (its UUID, PINT AE BTAE-07).'),
    reference: ref('Its number (`CRN-…`): read GET /invoices/{number} with a server key.'),
    invoice_reference: ref('The number of the invoice it credits.'),
  })
  .openapi('CreditNoteEventData', { description: 'Ids only: never amounts, parties or lines.' });
const DealEventData = referenceOnly('deal', 'DealEventData');
// Viewing feedback is never in an event.
const ViewingEventData = referenceOnly('viewing', 'ViewingEventData');
const ListingPermitEventData = z
  .object({
    listing_id: ref('The listing id; read the listing (its permit, last day and status) with the admin API.'),
    permit_reference: ref('The permit’s number, as the authority issued it.'),
  })
  .openapi('ListingPermitEventData');
// Calendars imported per holiday home (issue 24).
const CalendarImportEventData = z
  .object({
    import_id: ref('The calendar import’s id (admin API: …/listings/{slug}/calendar-imports/{import_id}).'),
    listing_id: ref('The holiday home (listing) id.'),
  })
  .openapi('CalendarImportEventData', { description: 'Sent once after repeated failures, again only after a sync succeeded.' });
const CalendarConflictEventData = z
  .object({
    listing_id: ref('The holiday home (listing) id.'),
    import_id: ref('The calendar import whose event overlaps the stay.'),
    block_id: ref('The imported block (admin API: …/listings/{slug}/blocks).'),
    booking_id: ref('The booking id.'),
    reference: ref('The booking reference.'),
  })
  .openapi('CalendarConflictEventData', { description: 'Both stay: staff decide. Never guest data.' });
// Payments online (issue 34): ids only, never amounts or the payer.
const PaymentEventData = z
  .object({
    payment_id: ref('The payment’s id (`pay_…`).'),
    rent_payment_id: ref('The rent payment it pays, when it pays rent.').optional(),
    booking_id: ref('The booking it pays (a deposit or the balance), when it pays a booking.').optional(),
  })
  .openapi('PaymentEventData', {
    description: 'Ids only: never amounts, cards or the payer. One of rent_payment_id and booking_id.',
  });
const PaymentRefundEventData = z
  .object({
    payment_id: ref('The payment refunded (`pay_…`).'),
    refund_id: ref('The refund’s id (`rfd_…`).'),
    booking_id: ref('The booking it paid, when it paid a booking.').optional(),
    rent_payment_id: ref(
      'The rent payment it paid, when it paid rent (refunded in full: the rent payment was received before it came).',
    ).optional(),
  })
  .openapi('PaymentRefundEventData', { description: 'Ids only: never amounts, cards or the payer.' });
const BookingRefundEventData = z
  .object({
    booking_id: ref('The booking id.'),
    reference: ref('The booking reference.'),
    listing_id: ref('The holiday home (listing) id.'),
    refund_id: ref('The refund’s id (`rfd_…`): the admin API’s booking lists its refunds.'),
  })
  .openapi('BookingRefundEventData', { description: 'Never guest data or amounts.' });
const SavedSearchEventData = z
  .object({
    saved_search_id: ref('The saved search id: read it (and its links) with a server key holding `read:leads`.'),
    contact_reference: ref('The person who saved it (read:contacts gives their email and language).'),
  })
  .openapi('SavedSearchEventData', { description: 'Ids only: never the email or the search.' });
const SavedSearchMatchEventData = z
  .object({
    saved_search_id: ref('The saved search id: read it (and its links) with a server key holding `read:leads`.'),
    contact_reference: ref('The person who saved it (read:contacts gives their email and language).'),
    listing_id: ref('The listing that started matching: GET /saved-searches/{id}/matches names its slugs.'),
  })
  .openapi('SavedSearchMatchEventData', { description: 'Ids only: never the email or the search.' });
const ListingWriteEventData = z
  .object({
    listing_id: ref('The listing id.'),
    external_reference: ref('The integration’s own id of it, as `<source>:<id>` (PUT /external-listings/{external_id}).'),
  })
  .openapi('ListingWriteEventData', { description: 'Ids only (issue 38): read the listing with GET /listings/{slug}.' });
const ListingRatesEventData = z
  .object({
    listing_id: ref(
      'The holiday home (listing) id: read its rates (GET /listings/{slug}/rates with a server key, or the admin API) and refresh its prices and calendar.',
    ),
  })
  .openapi('ListingRatesEventData', {
    description:
      'The id only: event data carries ids and references, so the changed nights are not in it (docs/api-reference.md, "Daily rates"); the audit row keeps the span.',
  });
// Webhook endpoints through the API (issue 38).
const WebhookEndpointEventData = z
  .object({
    endpoint_id: ref('The webhook endpoint’s id: GET /webhook-endpoints/{id} shows its `disabled_reason`.'),
  })
  .openapi('WebhookEndpointEventData', { description: 'The id only: never the URL or the secret.' });
const PingEventData = z.object({ subscription_id: ref('The subscription the test was sent to.') }).openapi('PingEventData');

type Entry = { data: z.ZodType; when: string };
const entry = (data: z.ZodType, when: string): Entry => ({ data, when });

export const eventCatalogue = {
  'lead.created': entry(LeadEventData, 'An enquiry was posted to POST /leads or a lead was created in the CRM.'),
  'lead.assigned': entry(LeadEventData, 'A lead was assigned to a member.'),
  'lead.status_changed': entry(LeadEventData, 'A lead moved to another status.'),
  'lead.escalated': entry(LeadEventData, 'A lead was escalated by scheduled work (no answer in time).'),
  'contact.created': entry(ContactEventData, 'A contact was created.'),
  'contact.updated': entry(ContactEventData, 'A contact was changed (or erased).'),
  'activity.created': entry(ActivityEventData, 'An activity was logged.'),
  'task.created': entry(TaskEventData, 'A task was created.'),
  'task.done': entry(TaskEventData, 'A task was marked done.'),
  'booking.requested': entry(BookingEventData, 'A booking request was posted to POST /bookings.'),
  'booking.confirmed': entry(BookingEventData, 'The company confirmed a booking.'),
  'booking.paid': entry(BookingEventData, 'A confirmed booking was paid.'),
  'booking.cancelled': entry(BookingEventData, 'A booking was cancelled (or its hold expired).'),
  'booking.balance_due': entry(
    BookingEventData,
    'A booking’s balance became what is due (its deposit paid and the booking confirmed): the guest pays it on the stay page by the booking’s `payment_due_at` (admin API).',
  ),
  'booking.guests_registered': entry(
    BookingEventData,
    'The guest registered the stay’s guests on the stay page, or replaced the list (issue 37): ids only, never the guests; staff read them in the admin API.',
  ),
  'booking.refunded': entry(
    BookingRefundEventData,
    'A payment of a cancelled booking was refunded through the provider, by the booking’s cancellation policy (one event per refund).',
  ),
  'booking.changed': entry(
    BookingEventData,
    'A booking’s dates or number of guests were changed by an integration (`PATCH /bookings/{reference}`), and its quote with them.',
  ),
  'lease.created': entry(LeaseEventData, 'A lease was created (draft).'),
  'lease.activated': entry(LeaseEventData, 'A lease became active.'),
  'lease.notice_given': entry(LeaseEventData, 'Notice was given on a lease.'),
  'lease.ended': entry(LeaseEventData, 'A lease ended.'),
  'lease.updated': entry(LeaseEventData, 'A lease was changed.'),
  'rent_payment.received': entry(RentPaymentEventData, 'A rent payment was received.'),
  'rent_payment.bounced': entry(RentPaymentEventData, 'A rent payment bounced.'),
  'rent_payment.overdue': entry(RentPaymentEventData, 'A rent payment became overdue (scheduled work).'),
  'rent_mandate.created': entry(RentMandateEventData, 'A direct-debit mandate was recorded on a lease (pending).'),
  'rent_mandate.activated': entry(RentMandateEventData, 'The bank accepted a direct-debit mandate: it collects now.'),
  'rent_mandate.rejected': entry(RentMandateEventData, 'The bank rejected a direct-debit mandate.'),
  'rent_mandate.cancelled': entry(RentMandateEventData, 'A direct-debit mandate was cancelled.'),
  'rent_mandate.expired': entry(RentMandateEventData, 'A direct-debit mandate expired.'),
  'job.scheduled': entry(JobEventData, 'A maintenance job was scheduled.'),
  'job.done': entry(JobEventData, 'A maintenance job was done.'),
  'job.cancelled': entry(JobEventData, 'A maintenance job was cancelled.'),
  'job.approval_requested': entry(JobEventData, "The owner's approval was asked for a job."),
  'job.approval_answered': entry(JobEventData, 'The owner answered an approval request.'),
  'job_charge.booked': entry(JobChargeEventData, 'A charge was booked on a job.'),
  'job_charge.cancelled': entry(JobChargeEventData, 'A charge was cancelled.'),
  'owner_statement.ready': entry(
    OwnerStatementEventData,
    'A month closed for an owner (scheduled work, the company’s statement_grace_days after the month): sent once per owner and month.',
  ),
  'invoice.issued': entry(
    TaxDocumentEventData,
    'A tax invoice was issued (a taxable rent receipt, a booking paid, an owner’s month of fees, a job charge recharged).',
  ),
  'credit_note.issued': entry(
    CreditNoteEventData,
    'A tax credit note was issued against an invoice (a bounce, a cancellation, a refund).',
  ),
  'invoice.einvoice_due': entry(
    TaxDocumentEventData,
    'An invoice or credit note is not yet accepted by the company’s Accredited Service Provider 3 days before its legal deadline (14 days after its date of supply): sent once per document (scheduled work).',
  ),
  'deal.stage_changed': entry(DealEventData, 'A deal moved to another stage.'),
  'deal.won': entry(DealEventData, 'A deal was won.'),
  'deal.lost': entry(DealEventData, 'A deal was lost.'),
  'viewing.planned': entry(ViewingEventData, 'A viewing was planned.'),
  'viewing.updated': entry(ViewingEventData, 'A viewing was changed.'),
  'viewing.done': entry(ViewingEventData, 'A viewing took place.'),
  'viewing.cancelled': entry(ViewingEventData, 'A viewing was cancelled.'),
  'viewing.missed': entry(ViewingEventData, 'A viewing was missed.'),
  'listing.permit_expiring': entry(
    ListingPermitEventData,
    'A live listing’s advertising permit ends within the company’s reminder days (scheduled work; once per permit).',
  ),
  'listing.permit_expired': entry(
    ListingPermitEventData,
    'A live listing’s advertising permit has ended (scheduled work): it has left the portal feeds that need one.',
  ),
  'listing.created': entry(ListingWriteEventData, 'An integration’s server key created a listing (a draft) under its own id.'),
  'listing.updated': entry(
    ListingWriteEventData,
    'An integration’s server key changed a listing it writes (a repeat that changes nothing: none).',
  ),
  'listing.published': entry(
    ListingWriteEventData,
    'An integration’s server key published a listing: its pages and feeds show it at once.',
  ),
  'listing.withdrawn': entry(
    ListingWriteEventData,
    'An integration’s server key withdrew a listing: it reads as withdrawn at once.',
  ),
  'listing.rates_changed': entry(
    ListingRatesEventData,
    'A holiday home’s daily rates or restrictions changed: by staff, an integration’s server key or its pricing tool’s push (one event per change).',
  ),
  'payment.succeeded': entry(PaymentEventData, 'The provider confirmed a payment (its webhook, verified and read back).'),
  'payment.failed': entry(PaymentEventData, 'A checkout failed or expired without a payment.'),
  'payment.refunded': entry(PaymentRefundEventData, 'The provider accepted a refund of a payment (in full or in part).'),
  'calendar_import.failed': entry(
    CalendarImportEventData,
    'A holiday home’s imported calendar failed to sync 3 times in a row (its last good blocks stay); once until it recovers.',
  ),
  'calendar.conflict': entry(
    CalendarConflictEventData,
    'An imported calendar’s event was written over nights a held, confirmed or paid booking holds (both stay).',
  ),
  'saved_search.created': entry(
    SavedSearchEventData,
    'A visitor saved a search (POST /saved-searches): send them its `confirm_url` (read it with `read:leads`).',
  ),
  'saved_search.confirmed': entry(SavedSearchEventData, 'The visitor confirmed their saved search at its link: it matches now.'),
  'saved_search.matched': entry(
    SavedSearchMatchEventData,
    'A listing started matching a confirmed saved search (published, its price or size changed, its dates freed): once per listing and search (scheduled work).',
  ),
  'saved_search.stopped': entry(
    SavedSearchEventData,
    'A saved search was stopped: by the visitor at its link, by staff, or because the person was erased.',
  ),
  'webhook_endpoint.disabled': entry(
    WebhookEndpointEventData,
    'The platform disabled a webhook endpoint: it answered 410 Gone, or every attempt to it failed for 3 days (a delivery used its 10 attempts and nothing was delivered to it since). Sent to the company’s other endpoints.',
  ),
} as const satisfies Record<string, Entry>;

export type EventType = keyof typeof eventCatalogue;
export const eventTypes = Object.keys(eventCatalogue) as EventType[];

/** The test event: sent to one subscription on request, whatever types it takes. */
export const pingEvent = {
  type: 'ping',
  ...entry(PingEventData, 'An operator sent a test (admin API or CLI: webhooks ping). Sent to that subscription only.'),
} as const;

const causedBy = z
  .string()
  .regex(/^(admin|system|website|api:sk_[A-Za-z0-9]{10}|inbound:[a-z0-9][a-z0-9_.-]{0,39})$/)
  .openapi({
    description:
      '`admin`, `system`, `website`, `api:<key prefix>`, or `inbound:<source>` (an inbound channel: `inbound:whatsapp`, `inbound:propertyfinder`, `inbound:bayut`…). Ignore events caused by your own key.',
  });

/** The envelope of every event, with `type` and `data` narrowed per kind. */
export function envelopeOf(type: string, data: z.ZodType) {
  return z.object({
    id: z.string().openapi({ description: 'evt_…; also sent as the webhook-id header, stable across retries.' }),
    type: z.literal(type),
    created_at: z.string().openapi({ description: 'ISO 8601 UTC, when the change was recorded (in its transaction).' }),
    caused_by: causedBy,
    data,
  });
}

export const EventSchema = z
  .object({
    id: z.string(),
    type: z.string(),
    created_at: z.string(),
    caused_by: z.string(),
    data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  })
  .openapi('Event');

import { compileErrors, validate } from '@readme/openapi-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { useApi } from '../support/world';

/** The spec's "Kinds of event" table, copied here on purpose: the document must name each exactly so. */
const specKinds = [
  'lead.created',
  'lead.assigned',
  'lead.status_changed',
  'lead.escalated',
  'contact.created',
  'contact.updated',
  'activity.created',
  'task.created',
  'task.done',
  'booking.requested',
  'booking.confirmed',
  'booking.paid',
  'booking.cancelled',
  'lease.created',
  'lease.activated',
  'lease.notice_given',
  'lease.ended',
  'lease.updated',
  'rent_payment.received',
  'rent_payment.bounced',
  'rent_payment.overdue',
  'job.scheduled',
  'job.done',
  'job.cancelled',
  'job.approval_requested',
  'job.approval_answered',
  'job_charge.booked',
  'job_charge.cancelled',
  'deal.stage_changed',
  'deal.won',
  'deal.lost',
  'viewing.planned',
  'viewing.updated',
  'viewing.done',
  'viewing.cancelled',
  'viewing.missed',
];

let doc: any;
const api = useApi();
beforeAll(async () => {
  // raw: the OpenAPI document itself, a path the document does not declare
  doc = (await api.request('/api/v1/openapi.json')).json;
});

/** Follows a $ref inside the document. */
const resolve = (schema: any): any =>
  schema?.$ref
    ? resolve(
        schema.$ref
          .split('/')
          .slice(1)
          .reduce((node: any, key: string) => node[key], doc),
      )
    : schema;

describe('the events in the OpenAPI document', () => {
  it('has one webhook per kind of event of the spec, named as there, plus ping and the kinds this API adds', async () => {
    // Kinds the spec's table does not have (docs/api-reference.md, "Kinds of event"): issue 25's permit events and
    // issue 27's owner_statement.ready.
    const added = ['listing.permit_expiring', 'listing.permit_expired', 'owner_statement.ready'];
    // Issue 24's calendar imports.
    added.push('calendar_import.failed', 'calendar.conflict');
    // Issue 34's payments online.
    added.push('payment.succeeded', 'payment.failed', 'payment.refunded');
    // Issue 34's bookings paid online.
    added.push('booking.balance_due', 'booking.refunded');
    // Issue 34's direct-debit mandates for rent.
    added.push(
      'rent_mandate.created',
      'rent_mandate.activated',
      'rent_mandate.rejected',
      'rent_mandate.cancelled',
      'rent_mandate.expired',
    );
    // Issue 35's tax documents and their e-invoices' deadline.
    added.push('invoice.issued', 'credit_note.issued', 'invoice.einvoice_due');
    // Issue 36's saved searches.
    added.push('saved_search.created', 'saved_search.confirmed', 'saved_search.matched', 'saved_search.stopped');
    // Issue 37's daily rates and pricing tools.
    added.push('listing.rates_changed');
    // Issue 37's reservations for integrations.
    added.push('booking.changed');
    // Issue 38's webhook endpoints of integrations.
    added.push('webhook_endpoint.disabled');
    // Guest registration (issue 37).
    added.push('booking.guests_registered');
    // The catalogue written by integrations (issue 38).
    added.push('listing.created', 'listing.updated', 'listing.published', 'listing.withdrawn');
    expect(Object.keys(doc.webhooks).sort()).toEqual([...specKinds, ...added, 'ping'].sort());
    const result = await validate(structuredClone(doc));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('documents the envelope, the signature headers and data of ids and references only', () => {
    for (const [type, item] of Object.entries<any>(doc.webhooks)) {
      const operation = item.post;
      const body = resolve(operation.requestBody.content['application/json'].schema);
      expect(Object.keys(body.properties), type).toEqual(['id', 'type', 'created_at', 'caused_by', 'data']);
      expect(body.properties.type.const ?? body.properties.type.enum?.[0], type).toBe(type);
      const data = resolve(body.properties.data);
      // A statement is addressed by its owner and month (issue 27).
      for (const field of Object.keys(data.properties)) expect(field, type).toMatch(/(^|_)(id|reference)$|^month$/);
      const headers = operation.parameters.filter((p: any) => p.in === 'header').map((p: any) => p.name);
      expect(headers, type).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    }
    const booking = resolve(
      resolve(doc.webhooks['booking.paid'].post.requestBody.content['application/json'].schema).properties.data,
    );
    expect(Object.keys(booking.properties)).toEqual(['booking_id', 'reference', 'listing_id']);
  });

  it('keeps the events out of the admin document', async () => {
    // raw: the admin OpenAPI document itself, a path the document does not declare
    const adminDoc = (await api.request('/admin/v1/openapi.json')).json;
    expect(adminDoc.webhooks).toBeUndefined();
  });
});

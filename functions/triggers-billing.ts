import { ApiError } from '../lib/errors';
import type { TriggerContext, TriggerTable } from '../lib/event-triggers';
import { settleAttempt } from '../lib/webhooks/deliver';
import { createSubscription } from '../lib/webhooks/subscriptions';
import { writeOnce } from '../lib/write';
import { ListingWriteInput } from '../schema/catalogue/integration';
import type { RentMandateStatus } from '../schema/leases/db';
import { moveListing, writeListing } from './catalogue/integration';
import { changeMandate, createMandate } from './leases/mandates';
import { addMonths } from '../lib/dates';
import { admin, bouncedPayment, draftLease, person, receivedPayment, scopeOf, steps, today, written } from './triggers-support';

/**
 * Fixtures of `events trigger` (issue 38) for the billing family; functions/triggers.ts composes its table of them (each type defined once). Each
 * run makes its own records through the operations that emit the type (named with the run's token), in the trigger's
 * transaction: a direct-debit mandate on a new lease and its moves, a rent receipt's tax invoice and its bounce's credit
 * note, an integration's listing under an id of the run and its publication.
 */

// Direct debits: a pending mandate on a draft lease (as POST /leases/{reference}/rent-mandates), then staff's moves.
async function mandate(t: TriggerContext): Promise<string> {
  const starts_on = `${today(t).slice(0, 8)}01`;
  const input = {
    mandate_reference: `DDA-T${t.token}`,
    bank: { name: 'Test Bank' },
    account_holder: `Test tenant ${t.token}`,
    iban: 'AE070331234567890123456',
    max_amount: '30000.00',
    starts_on,
    ends_on: addMonths(starts_on, 12),
  };
  return (await createMandate(scopeOf(t), t.keyring, (await draftLease(t)).reference, input)).row.id;
}
const mandateMoved =
  (...moves: Array<Exclude<RentMandateStatus, 'pending'>>) =>
  async (t: TriggerContext) => {
    const id = await mandate(t);
    for (const status of moves) written(await writeOnce(() => changeMandate(scopeOf(t), id, { status })));
  };

// Tax invoices: a rent receipt's (the company registered for VAT, the lease taxable), then the credit note of its bounce.
const taxable = { taxable: true };

// The catalogue written by integrations: a draft under the run's own id (as PUT /api/v1/external-listings/{id}), its
// replacement, its publication and withdrawal. The run's listing has no photo: no media address is needed.
const options = (t: TriggerContext) => ({ causedBy: admin, now: t.now, mediaBaseUrl: '' });
async function listing(t: TriggerContext, title = `Test listing ${t.token}`): Promise<string> {
  const externalId = `trigger:${t.token}`;
  const body = ListingWriteInput.parse({
    slug: { en: `test-listing-${t.token}` },
    listing_type: 'sale',
    title: { en: title },
    price: '1000000',
    price_period: 'total',
  });
  await writeListing(t.trx, t.company, externalId, body, options(t));
  return externalId;
}
const listingMoved =
  (...moves: Array<'published' | 'withdrawn'>) =>
  async (t: TriggerContext) => {
    const externalId = await listing(t);
    for (const to of moves) await moveListing(t.db, t.company, externalId, to, options(t));
  };

// A webhook endpoint of the run's own (a URL that never answers: `.invalid`, RFC 2606), made as staff make one, then a
// delivery to it settled as 410 Gone by the dispatcher's own step (lib/webhooks/deliver.ts settleAttempt), which
// disables it: the attempt is logged with a note that no request was sent. The company's endpoints are not touched.
async function endpointDisabled(t: TriggerContext) {
  if (!t.webhooks) throw new ApiError('conflict', 'This deployment has no webhook machinery: no endpoint can be made.');
  const url = `https://trigger.invalid/${t.token}`;
  const input = { url, event_types: ['contact.created'], description: `Test endpoint ${t.token}`, enabled: true };
  const { row } = await createSubscription(t.db, t.company, input, t.webhooks);
  await person(t, 'subscriber');
  const delivery = await t.trx
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('subscription_id', '=', row.id)
    .executeTakeFirstOrThrow();
  const error = 'A test event (events trigger): no request was sent; 410 Gone stands in for the endpoint’s answer.';
  const job = { company_id: t.company.id, subscription_id: row.id };
  await settleAttempt(t.trx, t.now, delivery.id, job, { statusCode: 410, durationMs: 0, error }, null);
}

export const billingTriggers = {
  'rent_mandate.created': steps(mandate),
  'rent_mandate.activated': steps(mandateMoved('active')),
  'rent_mandate.rejected': steps(mandateMoved('rejected')),
  'rent_mandate.cancelled': steps(mandateMoved('cancelled')),
  'rent_mandate.expired': steps(mandateMoved('active', 'expired')),
  'invoice.issued': steps((t) => receivedPayment(t, taxable)),
  'credit_note.issued': steps((t) => bouncedPayment(t, taxable)),
  'listing.created': steps(listing),
  'listing.updated': steps(async (t) => {
    await listing(t);
    await listing(t, `Test listing ${t.token} (changed)`);
  }),
  'listing.published': steps(listingMoved('published')),
  'listing.withdrawn': steps(listingMoved('published', 'withdrawn')),
  'webhook_endpoint.disabled': steps(endpointDisabled),
} satisfies Partial<TriggerTable>;

import type { TriggerContext, TriggerFixture, TriggerTable } from '../lib/event-triggers';
import { writeOnce } from '../lib/write';
import { ListingWriteInput } from '../schema/catalogue/integration';
import type { RentMandateStatus } from '../schema/leases/db';
import { moveListing, writeListing } from './catalogue/integration';
import { changeMandate, createMandate } from './leases/mandates';
import { changePayment } from './leases/payments';
import { addMonths } from './leases/term';
import { admin, draftLease, receivedPayment, scopeOf, today, written } from './triggers-billing-support';

/**
 * Fixtures of `events trigger` (issue 38) for the billing family; functions/triggers.ts lays them over its table. Each
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
  return (await createMandate(scopeOf(t), t.keyring, await draftLease(t), input)).row.id;
}
const mandateMoved =
  (...moves: Array<Exclude<RentMandateStatus, 'pending'>>) =>
  async (t: TriggerContext) => {
    const id = await mandate(t);
    for (const status of moves) written(await writeOnce(() => changeMandate(scopeOf(t), id, { status })));
  };

// Tax invoices: a rent receipt's (the company registered for VAT), then the credit note of its bounce.
async function bounced(t: TriggerContext) {
  const payment = await receivedPayment(t);
  written(await writeOnce(() => changePayment(scopeOf(t), payment, { status: 'bounced' })));
}

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

const steps = (run: (t: TriggerContext) => Promise<unknown>): TriggerFixture => ({ steps: async (t) => void (await run(t)) });

export const billingTriggers: Partial<TriggerTable> = {
  'rent_mandate.created': steps(mandate),
  'rent_mandate.activated': steps(mandateMoved('active')),
  'rent_mandate.rejected': steps(mandateMoved('rejected')),
  'rent_mandate.cancelled': steps(mandateMoved('cancelled')),
  'rent_mandate.expired': steps(mandateMoved('active', 'expired')),
  'invoice.issued': steps(receivedPayment),
  'credit_note.issued': steps(bounced),
  'listing.created': steps(listing),
  'listing.updated': steps(async (t) => {
    await listing(t);
    await listing(t, `Test listing ${t.token} (changed)`);
  }),
  'listing.published': steps(listingMoved('published')),
  'listing.withdrawn': steps(listingMoved('published', 'withdrawn')),
};

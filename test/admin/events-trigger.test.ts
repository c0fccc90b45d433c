import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTriggers } from '../../functions/triggers';
import { provideEventTriggers } from '../../lib/event-triggers';
import { eventTypes } from '../../schema/platform/events';
import { adminCli, cliTimeout } from '../support/admin-cli';
import { createTestApi, type TestApi } from '../support/harness';
import { invoiceSettings } from '../support/invoices';
import { createCompany } from '../support/world';
import { dispatch, type Receiver, startReceiver, subscribe } from '../webhooks/support';

/**
 * Test events on demand (issue 38): POST /admin/v1/companies/{id}/events/trigger (and `npm run admin -- events
 * trigger`) runs a type's fixture (functions/triggers.ts) through the real operations in a development company. For
 * every type of the catalogue, iterated: either the answer lists the events the fixture's records emitted, that type
 * among them, every one marked with the run's `trigger_id` (in the company's events as in a delivery), or the type
 * has no fixture here and the answer (409) says so, nothing recorded. Refused for a production company; an unknown
 * type is a 400 at the field.
 */
let api: TestApi;
let dev: { id: string };
let prod: { id: string };
let hooks: Receiver;

const trigger = (companyId: string, body: unknown) => api.admin(`/companies/${companyId}/events/trigger`, { body });
/** The one event of `first` and the one of `then` the run made, which name the same record by `key`. */
function oneEach(events: Array<{ type: string; data: Record<string, unknown> }>, first: string, then: string, key: string) {
  const of = (type: string) => events.filter((e) => e.type === type);
  expect([of(first).length, of(then).length], then).toEqual([1, 1]);
  expect(of(then)[0]!.data[key]).toBe(of(first)[0]!.data[key]);
  return of(then)[0]!.data[key];
}
const eventsOf = async (companyId: string, type: string) =>
  (await api.admin(`/companies/${companyId}/events?type=${type}&page_size=100`)).json.results as Array<{
    id: string;
    data: Record<string, unknown>;
  }>;

beforeAll(async () => {
  // As the Node server does (bin/server.ts): the fixtures are not part of the app the Workers bundle.
  provideEventTriggers(eventTriggers);
  hooks = await startReceiver(() => ({ status: 204 }));
  // A database of its own: the delivery case dispatches what is due, which on a shared database is every file's.
  api = await createTestApi({ ownDatabase: true });
  // Registered for VAT (test/support/invoices.ts): a rent receipt issues its tax invoice, a bounce its credit note.
  // In Dubai: guest registration (booking.guests_registered) is Dubai's DET rule, made only there.
  const settings = { bookings_enabled: true, team_module: true, market: 'dubai', ...invoiceSettings };
  dev = await createCompany(api, { environment: 'development', settings });
  prod = await createCompany(api, { environment: 'production', settings });
  await subscribe(api, dev.id, { url: `${hooks.url}/hook`, event_types: ['lease.activated'] });
  // The payments' fixtures pay through the company's account for its currency, the provider in test mode (never reached).
  const account = {
    provider: 'stripe',
    currency: 'AED',
    api_key: 'sk_test_trigger',
    webhook_secret: 'whsec_trigger',
    card_fee: null,
  };
  expect((await api.admin(`/companies/${dev.id}/payment-accounts`, { body: account })).status).toBe(201);
}, 60_000);
afterAll(async () => {
  await hooks.close();
  await api.close();
});

describe('every type of the catalogue', () => {
  it.each(eventTypes)('%s', async (type) => {
    const fixture = eventTriggers[type];
    const before = await eventsOf(dev.id, type);
    const res = await trigger(dev.id, { type });
    if ('unavailable' in fixture) {
      expect(res.status, JSON.stringify(res.json)).toBe(409);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.json.detail).toContain(type);
      expect(await eventsOf(dev.id, type)).toEqual(before);
      return;
    }
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const { trigger_id, events } = res.json as { trigger_id: string; events: Array<{ id: string; type: string; data: any }> };
    expect(trigger_id).toMatch(/^trg_[a-z0-9]+$/);
    expect(events.map((e) => e.type)).toContain(type);
    for (const event of events) expect(event.data.trigger_id, event.type).toBe(trigger_id);
    // The company's events hold them as recorded, marked; those recorded before are not.
    const after = await eventsOf(dev.id, type);
    const made = events.filter((e) => e.type === type).map((e) => e.id);
    expect(
      after
        .filter((e) => e.data.trigger_id === trigger_id)
        .map((e) => e.id)
        .sort(),
    ).toEqual(made.sort());
    expect(after.length).toBe(before.length + made.length);
  });
});

describe('the trigger', () => {
  const available = eventTypes.filter((type) => !('unavailable' in eventTriggers[type]));

  it('has fixtures (the rest say why they are not made here)', () => {
    expect(available.length).toBeGreaterThan(0);
    for (const type of eventTypes) {
      const fixture = eventTriggers[type];
      if ('unavailable' in fixture) expect(fixture.unavailable.length, type).toBeGreaterThan(10);
    }
  });

  it('makes the event again on each run, with new records', async () => {
    const type = available[0]!;
    const first = await trigger(dev.id, { type });
    const second = await trigger(dev.id, { type });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.json.trigger_id).not.toBe(first.json.trigger_id);
    const ids = (r: typeof first) => r.json.events.map((e: { id: string }) => e.id);
    expect(ids(second).some((id: string) => ids(first).includes(id))).toBe(false);
  });

  it('delivers the triggered event marked, as any event of its type', async () => {
    const res = await trigger(dev.id, { type: 'lease.activated' });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    await dispatch(api);
    const delivered = hooks.requests.map((r) => JSON.parse(r.body)).filter((b) => b.type === 'lease.activated');
    const made = res.json.events.find((e: { type: string }) => e.type === 'lease.activated');
    const body = delivered.find((b) => b.id === made.id);
    expect(body, JSON.stringify(delivered)).toBeDefined();
    expect(Object.keys(body)).toEqual(['id', 'type', 'created_at', 'caused_by', 'data']);
    expect(body.data.trigger_id).toBe(res.json.trigger_id);
    expect(body.data.reference).toBe(made.data.reference);
  });

  it('makes booking.changed and booking.guests_registered in the trigger’s transaction, on a stay of its own', async () => {
    for (const type of ['booking.changed', 'booking.guests_registered']) {
      const res = await trigger(dev.id, { type });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      // The stay the fixture requested (with its guest, a new contact) is the one its operation changed or registered.
      oneEach(res.json.events, 'booking.requested', type, 'reference');
    }
  });

  it('answers 409 for booking.guests_registered in a company outside Dubai, nothing made', async () => {
    const elsewhere = await createCompany(api, { environment: 'development', settings: { bookings_enabled: true } });
    const res = await trigger(elsewhere.id, { type: 'booking.guests_registered' });
    expect(res.status, JSON.stringify(res.json)).toBe(409);
    expect(res.json.detail).toContain('market is dubai');
    expect(await eventsOf(elsewhere.id, 'booking.requested')).toEqual([]);
  });

  it('is refused for a production company, nothing made', async () => {
    const res = await trigger(prod.id, { type: available[0] });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const all = await api.admin(`/companies/${prod.id}/events?page_size=100`);
    expect(all.json.results).toEqual([]);
  });

  it.each([['nope.never'], ['ping'], [''], [42]])('answers 400 at the field for the type %j', async (type) => {
    const res = await trigger(dev.id, { type });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(JSON.stringify(res.json)).toContain('type');
  });

  it('answers 400 for a body without a type, 404 for another company', async () => {
    expect((await trigger(dev.id, {})).status).toBe(400);
    expect((await trigger('00000000-0000-4000-8000-000000000000', { type: available[0] })).status).toBe(404);
  });
});

describe('the billing family (functions/triggers-billing.ts)', () => {
  const made = [
    'rent_mandate.created',
    'rent_mandate.activated',
    'rent_mandate.rejected',
    'rent_mandate.cancelled',
    'rent_mandate.expired',
    'invoice.issued',
    'credit_note.issued',
    'listing.created',
    'listing.updated',
    'listing.published',
    'listing.withdrawn',
    'webhook_endpoint.disabled',
  ] as const;

  it.each(made)('has a fixture for %s', (type) => {
    expect('steps' in eventTriggers[type]).toBe(true);
  });

  it('disables an endpoint of the run’s own, the company’s endpoints untouched', async () => {
    const list = async () =>
      (await api.admin(`/companies/${dev.id}/webhook-subscriptions`)).json.results as Array<{
        id: string;
        url: string;
        enabled: boolean;
        disabled_reason: string | null;
      }>;
    const before = await list();
    const res = await trigger(dev.id, { type: 'webhook_endpoint.disabled' });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const disabled = res.json.events.find((e: { type: string }) => e.type === 'webhook_endpoint.disabled');
    const after = await list();
    expect(after.filter((s) => before.some((b) => b.id === s.id))).toEqual(before);
    const own = after.filter((s) => !before.some((b) => b.id === s.id));
    expect(own).toMatchObject([{ id: disabled.data.endpoint_id, enabled: false, disabled_reason: 'gone' }]);
    expect(own[0]!.url).toMatch(/^https:\/\/trigger\.invalid\//);
  });

  it('publishes the run’s own listing under an integration id of its own', async () => {
    const res = await trigger(dev.id, { type: 'listing.published' });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    // One transaction: on PostgreSQL its events share one created_at (now()), so their order is the ids'.
    const events = res.json.events as Array<{ type: string; data: Record<string, string> }>;
    expect(events.map((e) => e.type).sort()).toEqual(['listing.created', 'listing.published']);
    const created = events.find((e) => e.type === 'listing.created')!;
    const published = events.find((e) => e.type === 'listing.published')!;
    expect(published.data.listing_id).toBe(created.data.listing_id);
    expect(published.data.external_reference).toMatch(/^trigger:/);
  });
});

describe('the last scheduled and provider types (functions/triggers-scheduled.ts)', () => {
  type Made = { type: string };

  it('makes booking.balance_due by settling a deposit paid in test mode, on a stay of its own', async () => {
    const res = await trigger(dev.id, { type: 'booking.balance_due' });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    oneEach(res.json.events, 'booking.requested', 'booking.balance_due', 'reference');
    // A deposit only: the booking is not paid.
    const types = (res.json.events as Made[]).map((e) => e.type);
    expect(types).toContain('payment.succeeded');
    expect(types).not.toContain('booking.paid');
  });

  it('warns about its own tax invoice only, as of its warning day', async () => {
    const warned = async () =>
      (
        await api.db
          .selectFrom('tax_documents')
          .select(['id', 'einvoice_due_warned_at'])
          .where('company_id', '=', dev.id)
          .execute()
      )
        .filter((d) => d.einvoice_due_warned_at !== null)
        .map((d) => d.id);
    // Another document of the company, issued today as the fixture's is, and due on the same day.
    expect((await trigger(dev.id, { type: 'invoice.issued' })).status).toBe(201);
    const before = await warned();
    const res = await trigger(dev.id, { type: 'invoice.einvoice_due' });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const own = oneEach(res.json.events, 'invoice.issued', 'invoice.einvoice_due', 'invoice_id');
    expect((await warned()).sort()).toEqual([...before, own].sort());
  });

  it('says why owner_statement.ready is not made here (a closed month takes no line)', () => {
    const fixture = eventTriggers['owner_statement.ready'];
    expect('unavailable' in fixture && fixture.unavailable).toContain('closed');
  });
});

describe('npm run admin -- events trigger', () => {
  const cli = adminCli(() => api);

  it('makes the event in the company named and prints the answer', cliTimeout, async () => {
    const printed = await cli('events', 'trigger', 'lease.created', dev.id);
    expect(printed.trigger_id).toMatch(/^trg_/);
    expect(printed.events.map((e: { type: string }) => e.type)).toContain('lease.created');
    const recorded = await eventsOf(dev.id, 'lease.created');
    expect(recorded.filter((e) => e.data.trigger_id === printed.trigger_id)).toHaveLength(1);
  });
});

import type { TestApi } from '../support/harness';
import { world as oneWorld } from '../support/world';

/**
 * A company with the demo catalogue, two contacts, a member and keys: what the lease route tests share. A thin layer
 * over the one world builder (test/support/world.ts) until the lease tests use it directly.
 */
export async function leaseWorld(api?: TestApi) {
  const base = await oneWorld({ api });
  const own = base.api;
  const company = base.company;
  const writer = await base.keyWith(['write:leases']);
  const reader = await base.keyWith(['read:leases']);
  const { renter, landlord } = base.contacts;
  const handler = base.members.lina;
  let serial = 0;
  const homes = ['burj-vista-2br-fountain-view', 'al-reem-3br-sea-view', 'jvc-2br-townhouse', 'business-bay-fitted-office'];
  const world = {
    api: own,
    company,
    writer,
    reader,
    renter,
    landlord,
    handler,
    unique: () => `${Date.now().toString(36)}-${serial++}`,
    post: (body: Record<string, unknown>) => own.request('/api/v1/leases', { host: company.host, key: writer.secret, body }),
    write: (path: string, body: unknown, headers: Record<string, string> = {}, method = 'POST') =>
      own.request(`/api/v1${path}`, { host: company.host, key: writer.secret, method, body, headers }),
    get: (path: string) => own.request(`/api/v1${path}`, { host: company.host, key: reader.secret }),
    /** A valid draft's body: a year at 120000 a year in 4 payments on a lease listing of the demo catalogue. */
    body: (overrides: Record<string, unknown> = {}) => ({
      home: 'marina-gate-1br-furnished',
      renter,
      landlord,
      term: { start: '2027-01-01', end: '2027-12-31' },
      rent: { amount: '120000', period: 'year' },
      deposit: '6000',
      schedule: { payments: 4 },
      ...overrides,
    }),
    /** An active lease (made by the activate route) of a lease listing of its own, at most four per world. */
    activeLease: async (overrides: Record<string, unknown> = {}) => {
      const lease = (await world.post(world.body({ home: homes.pop(), ...overrides }))).json;
      const activated = await world.write(`/leases/${lease.reference}/activate`, undefined);
      if (activated.status !== 200) throw new Error(activated.text);
      return lease;
    },
    /** PATCH /rent-payments/{id}. */
    payment: (id: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      own.request(`/api/v1/rent-payments/${id}`, { host: company.host, key: writer.secret, method: 'PATCH', body, headers }),
    /** The payment ids of a lease's schedule, in due order. */
    paymentsOf: (lease: { schedule: { rows: Array<{ payment_id: string }> } }) => lease.schedule.rows.map((r) => r.payment_id),
    /** The types of the events recorded about one payment, oldest first. */
    paymentEvents: async (paymentId: string) =>
      (await own.db.selectFrom('events').selectAll().where('company_id', '=', company.id).orderBy('created_at').execute())
        .filter((e) => e.data.payment_id === paymentId)
        .map((e) => e.type),
    eventsOf: async (reference: string) =>
      (await own.db.selectFrom('events').selectAll().where('company_id', '=', company.id).orderBy('created_at').execute())
        .filter((e) => e.data.reference === reference)
        .map((e) => e.type),
  };
  return world;
}

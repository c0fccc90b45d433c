import { sql } from 'kysely';
import { type Ctx, newHome } from '../stay/support';
import type { TestApi } from '../support/harness';
import { world as oneWorld } from '../support/world';

/**
 * What the maintenance route tests share: a development company with the demo catalogue and bookings switched on
 * (a publishable key for booking requests), maintenance keys, lease keys and two contacts for leases, and a member.
 */
export async function maintenanceWorld(options: { settings?: Record<string, unknown>; api?: TestApi } = {}) {
  // A thin layer over the one world builder (test/support/world.ts) until the maintenance tests use it directly.
  const base = await oneWorld({ api: options.api, environment: 'development', settings: options.settings });
  const { api, company } = base;
  const ctx: Ctx = { api, company, pk: await base.publishableKey(['booking']) };
  const writer = await base.keyWith(['write:maintenance']);
  const reader = await base.keyWith(['read:maintenance']);
  const leaseKey = (await base.keyWith(['write:contacts', 'write:leases'])).secret;
  const lease = (path: string, body?: unknown) =>
    api.request(`/api/v1${path}`, { host: company.host, key: leaseKey, body, method: 'POST' });
  const contact = async (email: string) => {
    const res = await lease('/contacts', { name: email, email });
    if (res.status !== 201 && res.status !== 200) throw new Error(res.text);
    return res.json.reference as string;
  };
  const member = (await api.admin(`/companies/${company.id}/members`, { body: { name: 'Omar' } })).json.id as string;
  let serial = 0;
  const world = {
    api,
    ctx,
    company,
    writer,
    reader,
    member,
    contact,
    unique: () => `${Date.now().toString(36)}-${serial++}`,
    write: (path: string, body: unknown, headers: Record<string, string> = {}, method = 'POST') =>
      api.request(`/api/v1${path}`, { host: company.host, key: writer.secret, method, body, headers }),
    get: (path: string) => api.request(`/api/v1${path}`, { host: company.host, key: reader.secret }),
    /** A new job (201 checked) on `home` (default a lease listing with no lease). */
    job: async (overrides: Record<string, unknown> = {}) => {
      const res = await world.write('/jobs', {
        home: 'jvc-2br-townhouse',
        category: 'plumbing',
        problem: 'A leak.',
        ...overrides,
      });
      if (res.status !== 201) throw new Error(res.text);
      return res.json;
    },
    contractor: async (overrides: Record<string, unknown> = {}) => {
      const res = await world.write('/contractors', { name: `Fixers ${serial++}`, trades: ['plumbing'], ...overrides });
      if (res.status !== 201) throw new Error(res.text);
      return res.json.contractor_id as string;
    },
    /** A new holiday home of the company with plain terms (its calendar is the test's own). */
    holidayHome: () => newHome(ctx),
    /** An active lease (made through the leases API) of `home`, between two new contacts. */
    activeLease: async (home: string) => {
      const renter = await contact(`renter.${serial++}@example.com`);
      const landlord = await contact(`landlord.${serial++}@example.com`);
      const draft = await lease('/leases', {
        home,
        renter,
        landlord,
        term: { start: '2027-01-01', end: '2027-12-31' },
        rent: { amount: '100000', period: 'year' },
        schedule: { payments: 4 },
      });
      if (draft.status !== 201) throw new Error(draft.text);
      const active = await lease(`/leases/${draft.json.reference}/activate`);
      if (active.status !== 200) throw new Error(active.text);
      return { reference: draft.json.reference as string, renter, landlord };
    },
    /** The job.* / job_charge.* events of the company about `reference`, oldest first. */
    eventsOf: async (reference: string) =>
      (
        await api.db
          .selectFrom('events')
          .select(['type', 'caused_by', 'data'])
          .where('company_id', '=', company.id)
          .where(sql<boolean>`data->>'reference' = ${reference} or data->>'job_reference' = ${reference}`)
          .orderBy('created_at')
          .orderBy('id')
          .execute()
      ).map((e) => e.type),
  };
  return world;
}

export type World = Awaited<ReturnType<typeof maintenanceWorld>>;

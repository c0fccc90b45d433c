import Big from 'big.js';
import { createPropertyApiClient } from '../../clients/typescript/src/index';
import { createTestApi, type TestApi } from '../support/harness';
import { createKey, demoCompany } from '../support/world';

/** The accounts the statement tests map (company setting `accounting_accounts`): codes for Xero, names for QuickBooks. */
export const accounts = {
  rent_income: { code: '200', name: 'Rent income' },
  owner_payable: { code: '810', name: 'Owner payable' },
  fees: { code: '260', name: 'Management fees' },
  deposits_held: { code: '820', name: 'Deposits held' },
  maintenance: { code: '420', name: 'Maintenance' },
};

type Json = Record<string, any>;

/**
 * A company with the demo catalogue (Asia/Dubai, AED) whose journal accounts are mapped, its keys, and the writes
 * the statement tests make through the API: contacts, leases, receipts, bounces, replacements, jobs and charges.
 */
export async function statementWorld(
  options: { api?: TestApi; settings?: Record<string, unknown>; company?: Record<string, unknown> } = {},
) {
  const api = options.api ?? (await createTestApi({ env: { RATE_LIMIT_SERVER_KEY_PER_MINUTE: '1000000' } }));
  const company = await demoCompany(
    api,
    { team_module: true, accounting_accounts: accounts, ...options.settings },
    options.company,
  );
  const office = await createKey(api, company.id, {
    scopes: ['read:leases', 'write:leases', 'write:contacts', 'read:maintenance', 'write:maintenance'],
  });
  const reader = await createKey(api, company.id, { scopes: ['read:leases'] });
  /** The typed client on the API in process (no server): the reader's key, the company's host. */
  const client = createPropertyApiClient({
    baseUrl: `http://${company.host}`,
    serverKey: reader.secret,
    fetch: async (request: Request) => api.app.fetch(request),
  });

  async function call(path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') {
    return api.request(`/api/v1${path}`, { host: company.host, key: office.secret, body, method });
  }
  async function ok(path: string, body?: unknown, method?: string): Promise<Json> {
    const res = await call(path, body, method);
    if (res.status !== 200 && res.status !== 201) throw new Error(`${method ?? 'POST'} ${path}: ${res.status} ${res.text}`);
    return res.json;
  }
  let serial = 0;
  const person = async (name: string) =>
    (await ok('/contacts', { name, email: `${name.replace(/\W/g, '.')}.${serial++}@example.com` })).reference as string;
  const renter = await person('Renter');

  const world = {
    api,
    company,
    office,
    reader,
    client,
    call,
    ok,
    person,
    renter,
    /** Noon in Dubai on `day`: the company's today is `day`. */
    on: (day: string) => api.clock.set(new Date(`${day}T08:00:00Z`)),
    /** A draft lease of `home` for `landlord` (a year from 2027-01-01 in 12 monthly payments, 5% fee), activated. */
    lease: async (landlord: string, home: string, overrides: Json = {}, activate = true) => {
      const lease = await ok('/leases', {
        home,
        renter,
        landlord,
        term: { start: '2027-01-01', end: '2027-12-31' },
        rent: { amount: '120000', period: 'year' },
        schedule: { payments: 12 },
        fee: { kind: 'percent', value: '5' },
        ...overrides,
      });
      if (activate) await ok(`/leases/${lease.reference}/activate`, undefined, 'POST');
      return { reference: lease.reference as string, payments: lease.schedule.rows.map((r: Json) => r.payment_id) as string[] };
    },
    receive: (paymentId: string) => ok(`/rent-payments/${paymentId}`, { status: 'received' }, 'PATCH'),
    bounce: (paymentId: string) => ok(`/rent-payments/${paymentId}`, { status: 'bounced' }, 'PATCH'),
    job: async (home: string) =>
      (await ok('/jobs', { home, category: 'plumbing', problem: 'A leak under the sink.' })).reference as string,
    charge: async (job: string, cost: string, payer = 'owner') =>
      (await ok('/job-charges', { job, cost, payer })).charge_id as string,
    cancelCharge: (chargeId: string) => ok(`/job-charges/${chargeId}`, { status: 'cancelled' }, 'PATCH'),
    statement: async (owner: string, month: string) => {
      const res = await world.client.GET('/api/v1/owner-statements', { params: { query: { owner, month } } });
      if (!res.data) throw new Error(`statement ${owner} ${month}: ${JSON.stringify(res.error)}`);
      return res.data;
    },
    journal: async (month: string) => {
      const res = await world.client.GET('/api/v1/exports/journal', { params: { query: { month } } });
      if (!res.data) throw new Error(`journal ${month}: ${JSON.stringify(res.error)}`);
      return res.data as Json;
    },
  };
  return world;
}

export type StatementWorld = Awaited<ReturnType<typeof statementWorld>>;

/** Sums decimal strings exactly. */
export const sum = (values: string[]) => values.reduce((total, value) => total.plus(value), new Big(0));

/** Rows grouped by a key, in first-seen order (Map.groupBy is Node 21+). */
export function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) groups.set(key(row), [...(groups.get(key(row)) ?? []), row]);
  return groups;
}

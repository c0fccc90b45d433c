import Big from 'big.js';
import { sql } from 'kysely';
import { testClient } from '../support/client';
import { createTestApi, type TestApi } from '../support/harness';
import { adminOf, createKey, demoCompany } from '../support/world';

/** The accounts the statement tests map (company setting `accounting_accounts`): codes for Xero, names for QuickBooks. */
export const accounts = {
  rent_income: { code: '200', name: 'Rent income' },
  owner_payable: { code: '810', name: 'Owner payable' },
  fees: { code: '260', name: 'Management fees' },
  deposits_held: { code: '820', name: 'Deposits held' },
  maintenance: { code: '420', name: 'Maintenance' },
  vat_payable: { code: '830', name: 'VAT payable' },
};

type Json = Record<string, any>;
/** What openapi-fetch answers. */
type Answer<T> = { data?: T; error?: unknown; response: Response };

/** The data of a call that succeeded (a 200 or a 201); a thrown error naming `what` otherwise. */
export async function ok<T>(what: string, pending: Promise<Answer<T>>): Promise<T> {
  const res = await pending;
  if (res.response.status !== 200 && res.response.status !== 201)
    throw new Error(`${what}: ${res.response.status} ${JSON.stringify(res.error)}`);
  return res.data as T;
}

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
    {
      team_module: true,
      accounting_accounts: accounts,
      // Registered for VAT (a test TRN of the published shape): its fees carry VAT.
      trn: '100123456700003',
      vat_registered_on: '2018-01-01',
      ...options.settings,
    },
    options.company,
  );
  const office = await createKey(api, company.id, {
    scopes: ['read:leases', 'write:leases', 'write:contacts', 'read:maintenance', 'write:maintenance'],
  });
  const reader = await createKey(api, company.id, { scopes: ['read:leases'] });
  /** The typed client on the API in process (no server): the reader's key, the company's host. */
  const client = testClient(api, { host: company.host, serverKey: reader.secret });
  /** The typed client of the office's key, which writes. */
  const writes = testClient(api, { host: company.host, serverKey: office.secret });

  // The office's writes, as answered (a body as sent: any JSON, the refusals too).
  const changePayment = (paymentId: string, body: Json) =>
    writes.PATCH('/api/v1/rent-payments/{payment_id}', { params: { path: { payment_id: paymentId } }, body: body as never });
  const replacePayment = (body: Json) => writes.POST('/api/v1/rent-payments', { body: body as never });
  const postLease = (body: Json) => writes.POST('/api/v1/leases', { body: body as never });
  const changeLease = (reference: string, body: Json) =>
    writes.PATCH('/api/v1/leases/{reference}', { params: { path: { reference } }, body: body as never });
  const endLease = (reference: string, body: Json) =>
    writes.POST('/api/v1/leases/{reference}/end', { params: { path: { reference } }, body: body as never });
  const postCharge = (body: Json) => writes.POST('/api/v1/job-charges', { body: body as never });
  const changeCharge = (chargeId: string, body: Json) =>
    writes.PATCH('/api/v1/job-charges/{charge_id}', { params: { path: { charge_id: chargeId } }, body: body as never });

  let serial = 0;
  const person = async (name: string) =>
    (
      await ok(
        'POST /contacts',
        writes.POST('/api/v1/contacts', { body: { name, email: `${name.replace(/\W/g, '.')}.${serial++}@example.com` } }),
      )
    ).reference;
  const renter = await person('Renter');

  const world = {
    api,
    company,
    office,
    reader,
    client,
    writes,
    changePayment,
    replacePayment,
    postLease,
    changeLease,
    endLease,
    postCharge,
    changeCharge,
    /** The admin API erasing a person of the company. */
    erase: (person: string) =>
      adminOf(api).POST('/admin/v1/companies/{company_id}/contacts/{reference}/erase', {
        params: { path: { company_id: company.id, reference: person } },
      }),
    person,
    renter,
    /** Noon in Dubai on `day`: the company's today is `day`. */
    on: (day: string) => api.clock.set(new Date(`${day}T08:00:00Z`)),
    /** A draft lease of `home` for `landlord` (a year from 2027-01-01 in 12 monthly payments, 5% fee), activated. */
    lease: async (landlord: string, home: string, overrides: Json = {}, activate = true) => {
      const lease = await ok(
        'POST /leases',
        postLease({
          home,
          renter,
          landlord,
          term: { start: '2027-01-01', end: '2027-12-31' },
          rent: { amount: '120000', period: 'year' },
          schedule: { payments: 12 },
          fee: { kind: 'percent', value: '5' },
          ...overrides,
        }),
      );
      if (activate)
        await ok(
          'activate',
          writes.POST('/api/v1/leases/{reference}/activate', { params: { path: { reference: lease.reference } } }),
        );
      return { reference: lease.reference, payments: lease.schedule.rows.map((r) => r.payment_id) };
    },
    receive: (paymentId: string) => ok(`PATCH ${paymentId}`, changePayment(paymentId, { status: 'received' })),
    bounce: (paymentId: string) => ok(`PATCH ${paymentId}`, changePayment(paymentId, { status: 'bounced' })),
    job: async (home: string) =>
      (
        await ok(
          'POST /jobs',
          writes.POST('/api/v1/jobs', { body: { home, category: 'plumbing', problem: 'A leak under the sink.' } as never }),
        )
      ).reference,
    charge: async (job: string, cost: string, payer = 'owner') =>
      (await ok('POST /job-charges', postCharge({ job, cost, payer }))).charge_id,
    cancelCharge: (chargeId: string) => ok(`PATCH ${chargeId}`, changeCharge(chargeId, { status: 'cancelled' })),
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

/**
 * `count` more receipts of February 2027 on one lease, written as the receipt route leaves them (the table's trigger
 * writes their statement lines), on every day of the month and in a shuffled order, so the lines' ids do not follow
 * their days.
 */
export async function receiptsInBulk(api: TestApi, leaseReference: string, count: number): Promise<void> {
  await sql`
    insert into rent_payments (company_id, lease_id, status, due_on, amount, booked_on, fee_amount, received_at, updated_at)
    select l.company_id, l.id, 'received', d, 1000 + n, d, round((1000 + n) * 5 / 100.0, 2),
      (d + interval '9 hours') at time zone 'Asia/Dubai', (d + interval '9 hours') at time zone 'Asia/Dubai'
    from leases l
    cross join generate_series(1, ${count}::int) n
    cross join lateral (select ('2027-02-01'::date + (n * 7919) % 28) as d) day
    where l.reference = ${leaseReference}
    order by md5(n::text)`.execute(api.db);
}

import { sql } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { randomToken } from '../../lib/crypto';
import { developmentToken } from '../../lib/spam-check';
import { demoPipelines } from '../../functions/pipelines/demo';
import type { components } from '../../clients/typescript/src/index';
import { type LeadType, type Scope, scopes } from '../../schema/common/scopes';
import { type AdminBody, type AdminClient, adminClient, type TestClient, testClient } from './client';
import { createTestApi, demo, type RequestOptions, type TestApi } from './harness';

/**
 * One world for every group's tests (as unkey's test harness seeds a tenant): a company with the demo catalogue, a
 * server key holding every scope and the typed client on it, members (two active, one deactivated), departments,
 * two contacts, and the homes the groups work on (lease listings, holiday homes); plus helpers that make records
 * through the public API. Each test file builds its own world, so files run in parallel without sharing state.
 *
 * The one way to seed a test company: `useWorld()` (or `world()`) for the whole world, and below it the bricks it is
 * built of, each through the typed admin client — {@link createCompany} (a bare company), {@link createKey},
 * {@link importCatalogue} and {@link demoCompany} (a company with the demo catalogue) — for tests about one brick.
 */

// ---- The bricks: a company, its keys and its catalogue, through the admin API's typed client. ----

const admins = new WeakMap<TestApi, AdminClient>();
/** The typed admin client of a test API, with its operator token (one per API). */
export function adminOf(api: TestApi): AdminClient {
  const known = admins.get(api);
  if (known) return known;
  const client = adminClient(api);
  admins.set(api, client);
  return client;
}

/** A new company on a host of its own (production, AED, Asia/Dubai unless `overrides` say otherwise): its id and host. */
export async function createCompany(api: TestApi, overrides: Record<string, unknown> = {}) {
  const host = `c-${randomToken(12).toLowerCase()}.test`;
  const body = {
    name: 'Test Company',
    hosts: [host],
    environment: 'production',
    currency: 'AED',
    time_zone: 'Asia/Dubai',
    ...overrides,
  };
  const { data, error } = await adminOf(api).POST('/admin/v1/companies', { body: body as AdminBody<'createCompany'> });
  if (!data) throw new Error(`company not created: ${JSON.stringify(error)}`);
  return { id: data.id, host: data.hosts[0] as string };
}

/** A new key of a company (a server key unless `kind` says otherwise), its secret and prefix. */
export async function createKey(
  api: TestApi,
  companyId: string,
  body: { kind?: 'server' | 'publishable'; scopes?: Scope[]; origins?: string[]; lead_types?: LeadType[] },
): Promise<Key> {
  const { data, error } = await adminOf(api).POST('/admin/v1/companies/{company_id}/keys', {
    params: { path: { company_id: companyId } },
    body: { kind: 'server', ...body } as AdminBody<'createCompanyKey'>,
  });
  if (!data) throw new Error(`key not created: ${JSON.stringify(error)}`);
  return { secret: data.secret as string, prefix: data.prefix };
}

/** Imports a catalogue document (the demo catalogue unless given) into a company; the import's report. */
export async function importCatalogue(api: TestApi, companyId: string, doc: unknown = demo) {
  const { data, error } = await adminOf(api).POST('/admin/v1/companies/{company_id}/catalogue/import', {
    params: { path: { company_id: companyId } },
    body: doc as AdminBody<'importCompanyCatalogue'>,
  });
  if (!data) throw new Error(`import failed: ${JSON.stringify(error)}`);
  return data as any;
}

/** A company with the demo catalogue (team module on unless `settings` are given): its id and host. */
export async function demoCompany(
  api: TestApi,
  settings: Record<string, unknown> = { team_module: true },
  overrides: Record<string, unknown> = {},
) {
  const company = await createCompany(api, { settings, ...overrides });
  await importCatalogue(api, company.id);
  return company;
}

/**
 * A test API made before the file's tests (or a `describe` block's) and closed after them, in one line:
 * `const api = useApi();` (its fields are there once the tests run). For tests of the platform's bricks; a test that
 * needs a company with people and records takes {@link useWorld}.
 */
export function useApi(options: Parameters<typeof createTestApi>[0] = {}): TestApi {
  const api = {} as TestApi;
  beforeAll(async () => {
    Object.assign(api, await createTestApi(options));
  });
  afterAll(() => api.close?.());
  return api;
}

/** A company with the demo catalogue on `api` ({@link demoCompany}), made before the file's tests: its id and host. */
export function useDemoCompany(api: TestApi, ...args: Parameters<typeof demoCompany> extends [TestApi, ...infer R] ? R : never) {
  const company = {} as { id: string; host: string };
  beforeAll(async () => {
    Object.assign(company, await demoCompany(api, ...args));
  });
  return company;
}

// ---- The world. ----

export type WorldOptions = {
  /** An API of the test file's own making (a counting log, a set clock); default: a new one. */
  api?: TestApi;
  environment?: 'development' | 'production';
  /** Company settings, over `team_module` and `bookings_enabled`. */
  settings?: Record<string, unknown>;
  /** Other fields of the company (`hosts`, `currency`, `time_zone`…). */
  company?: Record<string, unknown>;
  /** Environment of a new API, over generous rate limits (the limits have their own tests). */
  env?: Record<string, string>;
  /**
   * A new API on a database of the test file alone (the harness's `ownDatabase`), for work that scans every company
   * (the webhook dispatcher, the scheduler).
   */
  ownDatabase?: boolean;
  /** The demo pipelines (sales, leasing) added too (as `w.pipelines()` adds them). */
  pipelines?: boolean;
};

/** A key as the admin API gave it. */
export type Key = { secret: string; prefix: string };

type Schemas = components['schemas'];

/** The origin the world's publishable keys accept forms from. */
export const formOrigin = 'https://www.example.com';

/** The demo catalogue's homes by what the groups use them for (lease listings, holiday homes with booking terms). */
export const homes = {
  lease: 'marina-gate-1br-furnished',
  /** Lease listings, each for at most one active lease of a world. */
  leases: ['burj-vista-2br-fountain-view', 'al-reem-3br-sea-view', 'jvc-2br-townhouse', 'business-bay-fitted-office'],
  holiday: 'palm-5br-villa-private-beach-holiday',
  sale: 'marina-gate-2br-sea-view',
} as const;

const holidayListing = demo.listings.find((l) => l.slug.en === homes.holiday)!;

let serial = 0;
/** A value no other call of this process gives (time and a counter): for emails, external ids, titles. */
export const unique = () => `${Date.now().toString(36)}${(serial++).toString(36)}${randomToken(4).toLowerCase()}`;

/** Builds a world (see above). */
export async function world(options: WorldOptions = {}) {
  const api =
    options.api ??
    (await createTestApi({
      ownDatabase: options.ownDatabase,
      env: {
        RATE_LIMIT_SERVER_KEY_PER_MINUTE: '100000',
        RATE_LIMIT_PUBLISHABLE_KEY_PER_MINUTE: '100000',
        RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
        ...options.env,
      },
    }));
  const company = await demoCompany(
    api,
    { team_module: true, bookings_enabled: true, ...options.settings },
    { environment: options.environment ?? 'production', ...options.company },
  );
  const key: Key = await createKey(api, company.id, { scopes: [...scopes] });
  const client = testClient(api, { host: company.host, serverKey: key.secret });

  const adminClient = adminOf(api);
  const inCompany = { path: { company_id: company.id } };
  /**
   * A request to the admin API about this company (`/admin/v1/companies/{id}` + path), as the harness answers it:
   * for tests that build the path from a table of routes (the query count) or send what the document refuses.
   */
  const admin = async (path: string, body?: unknown, method?: string) =>
    // raw: a path built by the caller (any admin route of the company), for generic tables of routes
    api.admin(`/companies/${company.id}${path}`, { body, method: method ?? (body === undefined ? 'GET' : 'POST') });
  const member = async (name: string, more: { active?: boolean; department?: string; email?: string } = {}) => {
    const { data, error } = await adminClient.POST('/admin/v1/companies/{company_id}/members', {
      params: inCompany,
      body: { name, ...more } as AdminBody<'createCompanyMember'>,
    });
    if (!data) throw new Error(`member not added: ${JSON.stringify(error)}`);
    return data.id as string;
  };
  const department = async (key: string, en: string) => {
    const { data, error } = await adminClient.PUT('/admin/v1/companies/{company_id}/departments/{key}', {
      params: { path: { company_id: company.id, key } },
      body: { name: { en } } as AdminBody<'setCompanyDepartment'>,
    });
    if (!data) throw new Error(`department not put: ${JSON.stringify(error)}`);
    return key;
  };
  const contact = async (body: { name?: string; email?: string; phone?: string; language?: string } = {}) => {
    const email = body.email ?? (body.phone ? undefined : `person.${unique()}@example.com`);
    const res = await client.POST('/api/v1/contacts', { body: { name: email ?? 'A person', ...body, email } });
    if (!res.data) throw new Error(`contact not added: ${JSON.stringify(res.error)}`);
    return res.data.reference;
  };

  const departments = { sales: await department('sales', 'Sales'), leasing: await department('leasing', 'Leasing') };
  const members = {
    sara: await member('Sara', { department: departments.sales }),
    lina: await member('Lina'),
    retired: await member('Retired', { active: false }),
  };
  const contacts = { renter: await contact({ name: 'Renter' }), landlord: await contact({ name: 'Landlord' }) };
  const leaseHomes: string[] = [...homes.leases];
  let pipelinesAdded: Promise<void> | undefined;

  const w = {
    api,
    company,
    /** A server key with every scope, and the typed client on it. */
    key,
    client,
    /** The admin API's typed client (the operator's token): `w.adminClient.GET('/admin/v1/companies/{company_id}', …)`. */
    adminClient,
    members,
    departments,
    contacts,
    homes,
    unique,
    /** An email address no other record of the process has. */
    email: () => `person.${unique()}@example.com`,
    /** Another server key of the company, with these scopes only. */
    keyWith: (granted: Scope[]): Promise<Key> => createKey(api, company.id, { scopes: granted }),
    /** The typed client on another key (a secret), or on a new key with these scopes. */
    clientWith: async (keyOrScopes: string | Scope[]): Promise<TestClient> =>
      testClient(api, {
        host: company.host,
        serverKey:
          typeof keyOrScopes === 'string' ? keyOrScopes : (await createKey(api, company.id, { scopes: keyOrScopes })).secret,
      }),
    /** A publishable key for forms from {@link formOrigin}. */
    publishableKey: async (leadTypes: Array<'enquiry' | 'listing_request' | 'booking'> = ['enquiry', 'booking']) =>
      (await createKey(api, company.id, { kind: 'publishable', origins: [formOrigin], lead_types: leadTypes })).secret,
    /** The typed client of a page on {@link formOrigin}: a new publishable key on its POSTs (forms, booking requests), its Origin. */
    formClient: async (leadTypes?: Array<'enquiry' | 'listing_request' | 'booking'>): Promise<TestClient> =>
      testClient(api, { host: company.host, publishableKey: await w.publishableKey(leadTypes), headers: { Origin: formOrigin } }),
    /** The typed client without a key: what anyone may read (listings, availability, quotes). */
    anonymous: testClient(api, { host: company.host }),
    /**
     * A request to the company's public API (`/api/v1` + path), with the every-scope key unless another is given, as
     * the harness answers it: for a request the typed client will not send (a path or body the document refuses).
     */
    request: (path: string, o: RequestOptions = {}) =>
      // raw: a path built by the caller, for what the typed client will not send (undeclared paths, refused bodies)
      api.request(`/api/v1${path}`, { host: company.host, key: key.secret, ...o }),
    /** A request to the admin API about this company (`/admin/v1/companies/{id}` + path), as the harness answers it. */
    admin,
    member,
    department,
    contact,
    /** A lead sent with the server key (an enquiry), with its person. */
    lead: async (body: Record<string, unknown> = {}) => {
      const sent = { consent: true, consent_version: 'v1', email: w.email(), ...body };
      const { data, error } = await client.POST('/api/v1/leads', { body: sent as never });
      if (!data) throw new Error(`lead not sent: ${JSON.stringify(error)}`);
      return data as { reference: string; person: string; created_at: string };
    },
    /** An activity (a note on `lead` or `person` when given). */
    activity: async (body: Record<string, unknown> = {}) => {
      const sent = { type: 'note', source: 'test', external_id: unique(), ...body };
      const { data, error } = await client.POST('/api/v1/activities', { body: sent as Schemas['ActivityInput'] });
      if (!data) throw new Error(`activity not logged: ${JSON.stringify(error)}`);
      return data as { reference: string };
    },
    /** A task. */
    task: async (body: Record<string, unknown> = {}) => {
      const sent = { title: 'Call back', source: 'test', external_id: unique(), ...body };
      const { data, error } = await client.POST('/api/v1/tasks', { body: sent as Schemas['TaskInput'] });
      if (!data) throw new Error(`task not added: ${JSON.stringify(error)}`);
      return data as { task_id: string };
    },
    /** A lease listing of the demo catalogue no other lease of this world was made on (four per world). */
    leaseHome: () => {
      const home = leaseHomes.pop();
      if (!home) throw new Error('every lease home of this world is taken');
      return home;
    },
    /** A new holiday home of the company (the demo villa under a slug of its own), with plain terms unless given. */
    holidayHome: async (terms: Record<string, unknown> = {}, listing: Record<string, unknown> = {}) => {
      const slug = `home-${randomToken(8).toLowerCase()}`;
      await importCatalogue(api, company.id, {
        listings: [
          {
            ...holidayListing,
            slug: { en: slug, ar: `بيت-${slug}` },
            booking: { ...holidayListing.booking, ...terms },
            ...listing,
          },
        ],
      });
      return slug;
    },
    /**
     * The types of the company's events whose data names `reference` (any field), oldest first. The events of one
     * transaction share its `created_at` (and their ids are random), so within one they are given in name order.
     */
    eventsOf: async (reference: string) =>
      (
        await api.db
          .selectFrom('events')
          .select(['type', 'data'])
          .where('company_id', '=', company.id)
          .where(sql<boolean>`exists (select from jsonb_each_text(data) as field where field.value = ${reference})`)
          .orderBy('created_at')
          .orderBy('type')
          .execute()
      ).map((e) => e.type),
    /** The company's events of one type whose `data.reference` is `reference`, oldest first, as stored. */
    events: (type: string, reference: string) =>
      api.db
        .selectFrom('events')
        .selectAll()
        .where('company_id', '=', company.id)
        .where('type', '=', type)
        .where(sql<boolean>`data->>'reference' = ${reference}`)
        .orderBy('created_at')
        .orderBy('id')
        .execute(),
    /** Every event of the company, oldest first, as stored. */
    allEvents: () =>
      api.db.selectFrom('events').selectAll().where('company_id', '=', company.id).orderBy('created_at').orderBy('id').execute(),
    /** A development token for a form's spam check, as the company's Turnstile stand-in accepts it. */
    challenge: developmentToken,
    // --- Maintenance and pipelines (issues 22 and 28): records of those groups, made through the public API. ---
    /** A new job (a plumbing leak unless `body` says otherwise) on `home`, default a lease listing with no lease unless a test gives it one; as answered. */
    job: async (body: Partial<Schemas['JobInput']> = {}) => {
      const sent = { home: 'jvc-2br-townhouse', category: 'plumbing', problem: 'A leak.', ...body } as Schemas['JobInput'];
      const { data, error } = await client.POST('/api/v1/jobs', { body: sent });
      if (!data) throw new Error(`job not added: ${JSON.stringify(error)}`);
      return data;
    },
    /** A new contractor (a firm doing plumbing unless `body` says otherwise), by its id. */
    contractor: async (body: Partial<Schemas['ContractorInput']> = {}) => {
      const sent = { name: `Fixers ${unique()}`, trades: ['plumbing'], ...body } as Schemas['ContractorInput'];
      const { data, error } = await client.POST('/api/v1/contractors', { body: sent });
      if (!data) throw new Error(`contractor not added: ${JSON.stringify(error)}`);
      return data.contractor_id;
    },
    /** The demo pipelines (sales, leasing) added to the company, once per world. */
    pipelines: async () => {
      pipelinesAdded ??= (async () => {
        for (const pipeline of demoPipelines) {
          const { data, error } = await adminClient.POST('/admin/v1/companies/{company_id}/pipelines', {
            params: inCompany,
            body: pipeline as AdminBody<'createCompanyPipeline'>,
          });
          if (!data) throw new Error(`pipeline not added: ${JSON.stringify(error)}`);
        }
      })();
      await pipelinesAdded;
    },
    /** A new deal in the sales pipeline (the demo pipelines added first), of a new person unless `body` names one; as answered. */
    deal: async (body: Schemas['DealInput'] = {}) => {
      await w.pipelines();
      const person = body.person ?? (await contact());
      const { data, error } = await client.POST('/api/v1/deals', { body: { person, title: 'A deal', ...body } });
      if (!data) throw new Error(`deal not added: ${JSON.stringify(error)}`);
      return data;
    },
    /** A new viewing planned on `deal` (a new deal on the demo's sale home unless given); as answered. */
    viewing: async (body: Partial<Schemas['ViewingInput']> = {}) => {
      const deal = body.deal ?? (await w.deal({ home: homes.sale })).reference;
      const { data, error } = await client.POST('/api/v1/viewings', { body: { deal, time: '2030-01-15T10:00:00Z', ...body } });
      if (!data) throw new Error(`viewing not planned: ${JSON.stringify(error)}`);
      return data;
    },
    // --- end of maintenance and pipelines ---
    /** Closes the API when the world made it (an API handed in is its maker's to close). */
    close: () => (options.api ? Promise.resolve() : api.close()),
  };
  if (options.pipelines) await w.pipelines();
  return w;
}

export type World = Awaited<ReturnType<typeof world>>;

/**
 * The world of a test file (or of a `describe` block), built before its tests and closed after them, in one line:
 * `const w = useWorld();`. Its fields are there once the tests run, not while the file is collected; `options` may be
 * a function, called when the world is built (e.g. for an API made in an earlier `beforeAll`).
 */
export function useWorld(options: WorldOptions | (() => WorldOptions | Promise<WorldOptions>) = {}): World {
  const w = {} as World;
  beforeAll(async () => {
    Object.assign(w, await world(typeof options === 'function' ? await options() : options));
  });
  afterAll(() => w.close?.());
  return w;
}

/**
 * Typed clients of the file's world, each on a new server key with one list of scopes, made before its tests:
 * `const [writes, reads] = useClients(w, ['write:leads'], ['read:leads']);` (call after {@link useWorld}).
 */
export function useClients<Grants extends Scope[][]>(w: World, ...grants: Grants): { [K in keyof Grants]: TestClient } {
  const clients = grants.map(() => ({}) as TestClient);
  beforeAll(async () => {
    const made = await Promise.all(grants.map((granted) => w.clientWith(granted)));
    for (const [i, client] of made.entries()) Object.assign(clients[i] as TestClient, client);
  });
  return clients as { [K in keyof Grants]: TestClient };
}

// ---- Leases and rent payments (functions/leases): the lease records a test makes through the typed client. ----

/** A draft lease's body on `home` (default: the demo's lease listing): a year at 120000 a year in 4 payments. */
export function leaseBody(w: World, overrides: Record<string, unknown> = {}) {
  return {
    home: w.homes.lease as string,
    renter: w.contacts.renter,
    landlord: w.contacts.landlord,
    term: { start: '2027-01-01', end: '2027-12-31' },
    rent: { amount: '120000', period: 'year' as const },
    deposit: '6000',
    schedule: { payments: 4 },
    ...overrides,
  };
}

/**
 * The lease routes through the typed client, each answering openapi-fetch's `{ data, error, response }`. A body is
 * taken as any JSON, so a test can send what the schema refuses and read the typed problem.
 */
let ibanSerial = 0;

/** A valid UAE IBAN (23 characters, MOD 97-10 check digits computed), none given twice in a process. */
export function validIban(): string {
  const bban = `033${String(Date.now() % 1e10).padStart(10, '0')}${String(ibanSerial++ % 1e6).padStart(6, '0')}`;
  const digits = `${bban}101400`; // "AE00" moved to the end: A = 10, E = 14
  const check = 98n - (BigInt(digits) % 97n);
  return `AE${String(check).padStart(2, '0')}${bban}`;
}

export function leasesOf(w: World) {
  type Body = Record<string, unknown>;
  const path = (reference: string) => ({ params: { path: { reference } } });
  const payment = (paymentId: string) => ({ params: { path: { payment_id: paymentId } } });
  const l = {
    body: (overrides: Body = {}) => leaseBody(w, overrides),
    /** POST /leases of a draft's body with `overrides`. */
    post: (overrides: Body = {}) => w.client.POST('/api/v1/leases', { body: leaseBody(w, overrides) as never }),
    /** POST /leases of exactly `body`. */
    postRaw: (body: Body) => w.client.POST('/api/v1/leases', { body: body as never }),
    get: (reference: string) => w.client.GET('/api/v1/leases/{reference}', path(reference)),
    patch: (reference: string, body: Body, headers: Record<string, string> = {}) =>
      w.client.PATCH('/api/v1/leases/{reference}', { ...path(reference), body: body as never, headers }),
    activate: (reference: string, headers: Record<string, string> = {}) =>
      w.client.POST('/api/v1/leases/{reference}/activate', { ...path(reference), headers }),
    notice: (reference: string, body: Body, headers: Record<string, string> = {}) =>
      w.client.POST('/api/v1/leases/{reference}/notice', { ...path(reference), body: body as never, headers }),
    end: (reference: string, body: Body, headers: Record<string, string> = {}) =>
      w.client.POST('/api/v1/leases/{reference}/end', { ...path(reference), body: body as never, headers }),
    renew: (reference: string, body: Body = {}) =>
      w.client.POST('/api/v1/leases/{reference}/renew', { ...path(reference), body: body as never }),
    payment: (paymentId: string) => w.client.GET('/api/v1/rent-payments/{payment_id}', payment(paymentId)),
    /** GET /rent-payments with a query string's parameters (any, so a test can send what the schema refuses). */
    payments: (query: string) =>
      w.client.GET('/api/v1/rent-payments', { params: { query: Object.fromEntries(new URLSearchParams(query)) as never } }),
    /** PATCH /rent-payments/{payment_id}. */
    changePayment: (paymentId: string, body: Body, headers: Record<string, string> = {}) =>
      w.client.PATCH('/api/v1/rent-payments/{payment_id}', { ...payment(paymentId), body: body as never, headers }),
    /** POST /rent-payments (a replacement). */
    replace: (body: Body) => w.client.POST('/api/v1/rent-payments', { body: body as never }),
    /** A direct-debit mandate's body: a year (2027), up to 30000 a collection, over `overrides`. */
    mandateBody: (overrides: Body = {}) => ({
      mandate_reference: `DDA-${w.unique()}`,
      bank: { name: 'Emirates NBD', code: '026' },
      account_holder: 'Renter Holder',
      iban: validIban(),
      max_amount: '30000.00',
      starts_on: '2027-01-01',
      ends_on: '2027-12-31',
      ...overrides,
    }),
    /** POST /leases/{reference}/rent-mandates (a direct-debit mandate; any JSON). */
    addMandate: (reference: string, body: Body) =>
      w.client.POST('/api/v1/leases/{reference}/rent-mandates', { ...path(reference), body: body as never }),
    mandate: (mandateId: string) =>
      w.client.GET('/api/v1/rent-mandates/{mandate_id}', { params: { path: { mandate_id: mandateId } } }),
    /** GET /rent-mandates with a query string's parameters. */
    mandates: (query: string) =>
      w.client.GET('/api/v1/rent-mandates', { params: { query: Object.fromEntries(new URLSearchParams(query)) as never } }),
    /** PATCH /rent-mandates/{mandate_id}. */
    changeMandate: (mandateId: string, body: Body, headers: Record<string, string> = {}) =>
      w.client.PATCH('/api/v1/rent-mandates/{mandate_id}', {
        params: { path: { mandate_id: mandateId } },
        body: body as never,
        headers,
      }),
    /** A draft lease, as answered (throws when refused). */
    draft: async (overrides: Body = {}) => {
      const { data, error } = await l.post(overrides);
      if (!data) throw new Error(`lease not added: ${JSON.stringify(error)}`);
      return data;
    },
    /** An active lease on `home`, else on a lease listing no other lease of the world has (four per world), as answered. */
    active: async (overrides: Body = {}) => {
      const draft = await l.draft({ ...overrides, home: overrides.home ?? w.leaseHome() });
      const { data, error } = await l.activate(draft.reference);
      if (!data) throw new Error(`lease not activated: ${JSON.stringify(error)}`);
      return data;
    },
    /** The payment ids of a lease's schedule, in due order. */
    paymentIds: (lease: { schedule: { rows: Array<{ payment_id: string }> } }) => lease.schedule.rows.map((r) => r.payment_id),
    /** The types of the events recorded about one payment, oldest first. */
    paymentEvents: async (paymentId: string) =>
      (await w.api.db.selectFrom('events').selectAll().where('company_id', '=', w.company.id).orderBy('created_at').execute())
        .filter((e) => e.data.payment_id === paymentId)
        .map((e) => e.type),
  };
  return l;
}

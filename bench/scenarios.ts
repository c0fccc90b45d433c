import type { BenchImports } from './calendar-imports';
import { calendarSync, inboundWhatsApp } from './inbound-writes';
import type { BenchLeases } from './lease-writes';
import type { BenchJobs } from './maintenance';
import type { Scenario } from './shared';
import type { BenchStay } from './stays';

export type { Scenario } from './shared';

/** The name of a write's own baseline: one statement writing the rows one request of it stores. */
export const ownBaselineOf = (write: string) => `bare ${write}`;

/** Each write with `own` followed by its own baseline (the bench's route `/bare/write/<name>`), compared with it. */
function withOwnBaselines(list: Scenario[], own: boolean): Scenario[] {
  return list.flatMap((scenario) => {
    if (!scenario.own) return [scenario];
    if (!own) return [{ ...scenario, own: undefined }];
    const name = ownBaselineOf(scenario.name);
    const bare: Scenario = {
      name,
      method: 'POST',
      path: `/bare/write/${encodeURIComponent(scenario.name)}`,
      headers: {},
      expectedStatus: 201,
      // As many requests as the write (whose inputs run out: stays, due payments), on as many connections.
      ...(scenario.amount ? { amount: scenario.amount } : {}),
      ...(scenario.maxConnections ? { maxConnections: scenario.maxConnections } : {}),
    };
    return [{ ...scenario, baseline: name }, bare];
  });
}

export const bareSelect = 'bare select 1';
export const bareJson = 'bare JSON parse';
/** A route that does nothing: the ceiling of any route. */
export const bareHello = 'bare hello world';
/** One row inserted in one transaction on the same pool: the baseline of the forms. */
export const bareInsert = 'bare insert';

/** The page the forms are sent from: an origin on the publishable key (a development workspace takes localhost). */
export const formOrigin = 'http://localhost:8080';

let visitor = 0;
/** An enquiry as examples/website sends it, from a new person each time. */
export function enquiryFields(): Record<string, unknown> {
  const n = visitor++;
  return {
    name: `Bench Visitor ${n}`,
    email: `visitor.${process.pid}.${n}@bench.example`,
    message: 'Is it still available?',
    language: 'en',
    consent: true,
    consent_version: '2026-01',
    challenge: 'XXXX.DUMMY.TOKEN.XXXX',
    website: '',
    form: 'listing-enquiry',
    page: `${formOrigin}/listing.html`,
    listing: 'marina-gate-2br-sea-view',
  };
}

const enquiry = (): string => JSON.stringify(enquiryFields());

/** Booking requests, each for a stay no other request asks for, until the stays run out. */
function bookings(stays: BenchStay[]): () => string {
  let next = 0;
  return () => {
    const stay = stays[next++];
    if (!stay) throw new Error('the bench ran out of free stays');
    const n = visitor++;
    return JSON.stringify({
      ...stay,
      guests: 2,
      name: `Bench Guest ${n}`,
      email: `guest.${process.pid}.${n}@bench.example`,
      language: 'en',
      consent: true,
      consent_version: '2026-01',
      challenge: 'XXXX.DUMMY.TOKEN.XXXX',
      website: '',
    });
  };
}

/** A deal added by a CRM, for a new person each time. */
function deal(): string {
  const n = visitor++;
  return JSON.stringify({
    person: { name: `Bench Buyer ${n}`, email: `buyer.${process.pid}.${n}@bench.example` },
    title: 'Bench deal',
    home: 'marina-gate-2br-sea-view',
    value: '2450000',
  });
}

/** A person a CRM adds, new each time (no external id, email or phone matches one already there). */
function person(): string {
  const n = visitor++;
  return JSON.stringify({
    name: `Bench Person ${n}`,
    email: `person.${process.pid}.${n}@bench.example`,
    phone: `+9715${String(process.pid % 100).padStart(2, '0')}${String(n).padStart(6, '0')}`,
    language: 'en',
  });
}

/** Moves of the deals in turn, each between two open stages (offer and viewing), so every move changes a stage. */
function moves(deals: string[]): () => { path: string; body: string } {
  let next = 0;
  return () => {
    const n = next++;
    const reference = deals[n % deals.length] as string;
    const stage = Math.floor(n / deals.length) % 2 === 0 ? 'offer' : 'viewing';
    return { path: `/api/v1/deals/${reference}/move`, body: JSON.stringify({ stage }) };
  };
}

export function scenarios(input: {
  etag: string;
  slug: string;
  publishableKey: string;
  serverKey: string;
  stays: BenchStay[];
  /** Deals of the demo company for the moves (one more, the first, for the check of the answer); none on PGlite. */
  deals?: string[];
  jobs?: BenchJobs;
  leases?: BenchLeases;
  /** The company's WhatsApp receiver (PostgreSQL runs). */
  whatsAppPath?: string;
  /** Calendar imports to sync, with the admin token (PostgreSQL runs). */
  imports?: { adminToken: string; syncs: BenchImports };
  /** Each write against its own baseline (PostgreSQL: the rows are captured from the bench's database). */
  ownBaselines: boolean;
}): Scenario[] {
  const { etag, slug, publishableKey, serverKey, stays, deals, jobs, leases, whatsAppPath, imports, ownBaselines } = input;
  const json = { 'Content-Type': 'application/json' };
  const form = { ...json, 'X-Api-Key': publishableKey, Origin: formOrigin };
  // One stay goes to the check of what the route answers, a tenth of the rest to the warm-up (so a short trial run
  // with few stays, BENCH_BOOKINGS, uses fewer connections for this route: each takes at least one request).
  const warmup = Math.max(1, Math.floor((stays.length - 1) / 10));
  if (stays.length < 3) throw new Error(`only ${stays.length} free stays: too few to bench POST /api/v1/bookings`);
  return withOwnBaselines(
    [
      {
        name: 'listings, page built',
        method: 'GET',
        server: 'uncached',
        path: '/api/v1/listings?page_size=24',
        headers: {},
        expectedStatus: 200,
        baseline: bareSelect,
      },
      {
        name: 'listings',
        method: 'GET',
        path: '/api/v1/listings?page_size=24',
        headers: {},
        expectedStatus: 200,
        baseline: bareSelect,
      },
      {
        // As a browser asks for it: the kept page's brotli variant (lib/encodings.ts).
        name: 'listings, compressed',
        method: 'GET',
        path: '/api/v1/listings?page_size=24',
        headers: { 'Accept-Encoding': 'gzip, deflate, br' },
        expectedStatus: 200,
        baseline: bareSelect,
      },
      {
        name: 'listings 304',
        method: 'GET',
        path: '/api/v1/listings?page_size=24',
        headers: { 'If-None-Match': etag },
        expectedStatus: 304,
        baseline: bareSelect,
      },
      {
        name: 'listing detail, built',
        method: 'GET',
        server: 'uncached',
        path: `/api/v1/listings/${encodeURIComponent(slug)}`,
        headers: {},
        expectedStatus: 200,
        baseline: bareSelect,
      },
      {
        name: 'listing detail',
        method: 'GET',
        path: `/api/v1/listings/${encodeURIComponent(slug)}`,
        headers: {},
        expectedStatus: 200,
        baseline: bareSelect,
      },
      { name: bareSelect, method: 'GET', path: '/bare/select1', headers: {}, expectedStatus: 200 },
      { name: bareHello, method: 'GET', path: '/bare/hello', headers: {}, expectedStatus: 200 },
      { name: bareInsert, method: 'POST', path: '/bare/insert', headers: json, body: enquiry, expectedStatus: 201 },
      {
        name: 'enquiry form',
        method: 'POST',
        path: '/api/v1/leads',
        headers: form,
        body: enquiry,
        expectedStatus: 201,
        baseline: bareInsert,
        own: true,
        stores: 'leads',
      },
      {
        name: 'booking request',
        method: 'POST',
        path: '/api/v1/bookings',
        headers: form,
        body: bookings(stays),
        expectedStatus: 201,
        baseline: bareInsert,
        own: true,
        stores: 'bookings',
        amount: { warmup, run: stays.length - 1 - warmup },
        maxConnections: warmup,
      },
      ...(deals && jobs ? integrations(serverKey, deals, jobs) : []),
      ...(leases ? leaseWrites(serverKey, leases) : []),
      ...(whatsAppPath ? [inboundWhatsApp(whatsAppPath)] : []),
      ...(imports ? [calendarSync(imports.adminToken, imports.syncs)] : []),
      // Last: requests still in flight when a run stops land during this one, never after the server stops.
      { name: bareJson, method: 'POST', path: '/bare/form', headers: json, body: enquiry, expectedStatus: 201 },
    ],
    ownBaselines,
  );
}

/** A lease created, and a rent payment received (each request another due payment, each once). */
function leaseWrites(serverKey: string, leases: BenchLeases): Scenario[] {
  const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${serverKey}` };
  const [first, ...rest] = leases.payments;
  if (!first || rest.length < 20) throw new Error(`only ${leases.payments.length} due payments to receive`);
  let next = 0;
  const received = JSON.stringify({ status: 'received' });
  const warmup = Math.floor(rest.length / 10);
  return [
    { name: 'lease create', method: 'POST', path: '/api/v1/leases', headers, body: leases.lease, expectedStatus: 201, own: true },
    {
      name: 'rent payment received',
      method: 'PATCH',
      path: `/api/v1/rent-payments/${first}`,
      headers,
      body: () => received,
      request: () => ({ path: `/api/v1/rent-payments/${rest[next++]}`, body: received }),
      expectedStatus: 200,
      own: true,
      amount: { warmup, run: rest.length - warmup },
      maxConnections: warmup,
    },
  ];
}

/** The CRM's and the helpdesk's routes (PostgreSQL runs only): compared with the bare JSON route. */
function integrations(serverKey: string, deals: string[], jobs: BenchJobs): Scenario[] {
  const json = { 'Content-Type': 'application/json' };
  return [
    {
      name: 'contact create',
      method: 'POST',
      path: '/api/v1/contacts',
      headers: { ...json, Authorization: `Bearer ${serverKey}` },
      body: person,
      expectedStatus: 201,
      baseline: bareJson,
      own: true,
    },
    {
      name: 'deal create',
      method: 'POST',
      path: '/api/v1/deals',
      headers: { ...json, Authorization: `Bearer ${serverKey}` },
      body: deal,
      expectedStatus: 201,
      baseline: bareJson,
      own: true,
    },
    // The maintenance routes (bench/maintenance.ts): their blocks lie past the stays the bookings bench tiles.
    {
      name: 'job create',
      method: 'POST',
      path: '/api/v1/jobs',
      headers: { ...json, Authorization: `Bearer ${jobs.key}` },
      body: jobs.ticket,
      expectedStatus: 201,
      baseline: bareJson,
      own: true,
    },
    {
      name: 'deal move',
      method: 'POST',
      path: `/api/v1/deals/${deals[0]}/move`,
      headers: { ...json, Authorization: `Bearer ${serverKey}` },
      body: () => JSON.stringify({ stage: 'offer' }),
      request: moves(deals.slice(1)),
      expectedStatus: 200,
      baseline: bareJson,
      own: true,
    },
    {
      name: 'job schedule with block',
      method: 'POST',
      // The first job for the check of the answer; under load, the others in turn (jobs.nextJob gives their paths).
      path: jobs.nextJob(),
      request: () => ({ path: jobs.nextJob(), body: jobs.scheduleBody() }),
      headers: { ...json, Authorization: `Bearer ${jobs.key}` },
      body: jobs.scheduleBody,
      expectedStatus: 200,
      baseline: bareJson,
      own: true,
    },
  ];
}

/**
 * BENCH_SCENARIOS (a regular expression on the scenarios' names) runs those alone with their baselines and the bare
 * hello world: an A/B of one route without the whole run. The goals of the routes left out show as not measured.
 */
export function onlyScenarios(all: Scenario[]): Scenario[] {
  const pattern = process.env.BENCH_SCENARIOS;
  if (!pattern) return all;
  const chosen = new RegExp(pattern);
  const picked = new Set(all.filter((s) => chosen.test(s.name)).map((s) => s.name));
  for (const s of all) if (picked.has(s.name) && s.baseline) picked.add(s.baseline);
  picked.add(bareHello);
  return all.filter((s) => picked.has(s.name));
}

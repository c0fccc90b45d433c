import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type TestClient, testClient } from '../support/client';
import { adminOf, createCompany, createKey, useApi } from '../support/world';

/**
 * Sync lists order by (updated_at, id) with keyset cursors, "so a client paging while others write misses
 * nothing". Property: interleave writes (adds, changes that move a record to the end of the order, erasures)
 * with the page reads of one `updated_since` walk, and check what the client saw against a model of the writes.
 */

type Json = Record<string, any>;
type State = Record<string, unknown>;
type Write = { kind: 'create' } | { kind: 'change'; pick: number } | { kind: 'erase'; pick: number };
/** Each step reads the walk's next page (while the walk lasts), then makes its writes. */
type Step = { size: number; writes: Write[] };
type Scenario = { initial: number; steps: Step[]; tail: number };
type Company = { id: string; host: string; client: TestClient };
/** A sync list's query. */
type Query = { page_size: number; updated_since?: string; cursor?: string };

/** A sync list under test: how to add, change and erase its records, and the part of a record the model tracks. */
type Subject = {
  path: string;
  list(company: Company, query: Query): Promise<Json>;
  create(company: Company, n: number): Promise<Json>;
  change(company: Company, record: Json, n: number): Promise<Json>;
  erase(company: Company, record: Json): Promise<Json>;
  state(record: Json): State;
};

const api = useApi();

/** The body of a typed client's answer, which must have the `expected` status. */
async function ok(call: Promise<{ data?: unknown; error?: unknown; response: Response }>, expected = 200): Promise<Json> {
  const { data, error, response } = await call;
  if (response.status !== expected) throw new Error(`${response.url}: ${response.status} ${JSON.stringify(error)}`);
  return data as Json;
}

async function erasePerson(company: Company, person: string): Promise<void> {
  const res = await adminOf(api).POST('/admin/v1/companies/{company_id}/contacts/{reference}/erase', {
    params: { path: { company_id: company.id, reference: person } },
  });
  if (res.response.status !== 200 || res.data?.already_erased !== false) {
    throw new Error(`erase ${person}: ${res.response.status} ${JSON.stringify(res.error)}`);
  }
}

const contacts: Subject = {
  path: '/contacts',
  list: (company, query) => ok(company.client.GET('/api/v1/contacts', { params: { query } })),
  create: (company, n) =>
    ok(company.client.POST('/api/v1/contacts', { body: { name: `Person ${n}`, email: `person.${n}@example.com` } }), 201),
  change: (company, record, n) =>
    ok(
      company.client.PATCH('/api/v1/contacts/{reference}', {
        params: { path: { reference: record.reference } },
        body: { name: `Renamed ${n}` },
      }),
    ),
  async erase(company, record) {
    await erasePerson(company, record.reference);
    return { ...record, name: null, email: null, erased: true };
  },
  state: (record) => ({ name: record.name, email: record.email, erased: record.erased }),
};

/** new → contacted → lost → contacted → lost …: every move allowed, every move a change. */
const nextStatus: Record<string, string> = { new: 'contacted', contacted: 'lost', lost: 'contacted' };
const leads: Subject = {
  path: '/leads',
  list: (company, query) => ok(company.client.GET('/api/v1/leads', { params: { query } })),
  create: (company, n) =>
    ok(
      company.client.POST('/api/v1/leads', {
        body: {
          consent: true,
          consent_version: '2026-01',
          name: `Enquirer ${n}`,
          email: `enquirer.${n}@example.com`,
          message: `Enquiry ${n}`,
        },
      }),
      201,
    ),
  change: (company, record) =>
    ok(
      company.client.PATCH('/api/v1/leads/{reference}', {
        params: { path: { reference: record.reference } },
        body: { status: nextStatus[record.status] as never },
      }),
    ),
  async erase(company, record) {
    await erasePerson(company, record.person);
    return { ...record, message: null, erased: true };
  },
  state: (record) => ({ status: record.status, message: record.message, erased: record.erased }),
};

/** More pages than any run's records could fill at page size 1: a walk that goes on is a cursor that does not advance. */
const MAX_PAGES = 200;

/** Pages `path` (from `since`, or all of it) until next_cursor is null, with one page size; returns every page. */
async function pullAll(company: Company, subject: Subject, since: string | undefined, size: number): Promise<Json[][]> {
  const pages: Json[][] = [];
  let cursor: string | null = null;
  do {
    const query: Query = { page_size: size };
    if (since) query.updated_since = since;
    if (cursor) query.cursor = cursor;
    const page = await subject.list(company, query);
    pages.push(page.results);
    cursor = page.next_cursor;
    if (pages.length > MAX_PAGES) throw new Error(`${subject.path} did not end after ${MAX_PAGES} pages`);
  } while (cursor);
  return pages;
}

/** What the runs of one property exercised, so a generator too weak to matter cannot pass unnoticed. */
const newCoverage = () => ({
  runs: 0,
  multiPageWalks: 0,
  writesDuringWalk: 0,
  erasedDuringWalk: 0,
  seenAgainAfterAChange: 0,
  caughtUpOnlyByThePull: 0,
});
let coverage = newCoverage();

/** One run: a fresh company, some records, then one walk interleaved with writes, one catch-up pull, and the checks. */
async function run(subject: Subject, scenario: Scenario): Promise<void> {
  coverage.runs++;
  const created = await createCompany(api);
  const { secret } = await createKey(api, created.id, {
    scopes: ['read:contacts', 'write:contacts', 'read:leads', 'write:leads'],
  });
  const company: Company = { ...created, client: testClient(api, { host: created.host, serverKey: secret }) };
  // Before every record of this run's fresh company, whatever the clocks of the test and the database say.
  const t0 = '2000-01-01T00:00:00.000Z';

  /** The model: every record's last known state, from the answers of the writes. */
  const model = new Map<string, Json>();
  let n = 0;
  const live = () => [...model.values()].filter((r) => !r.erased);
  const write = async (op: Write): Promise<string | undefined> => {
    if (op.kind === 'create') {
      const record = await subject.create(company, ++n);
      model.set(record.reference, record);
      return record.reference;
    }
    const candidates = live();
    if (candidates.length === 0) return undefined;
    const record = candidates[op.pick % candidates.length]!;
    const next = op.kind === 'change' ? await subject.change(company, record, ++n) : await subject.erase(company, record);
    model.set(record.reference, next);
    return record.reference;
  };
  for (let i = 0; i < scenario.initial; i++) await write({ kind: 'create' });

  // The walk: page reads interleaved with the writes; it ends with the page whose next_cursor is null.
  const walk: Json[][] = [];
  let started = false;
  let done = false;
  let cursor: string | null = null;
  let atStart = new Map<string, State>();
  const touched = new Set<string>();
  const readPage = async (size: number) => {
    if (!started) atStart = new Map([...model].map(([reference, record]) => [reference, subject.state(record)]));
    started = true;
    const query: Query = { updated_since: t0, page_size: size };
    if (cursor) query.cursor = cursor;
    const page = await subject.list(company, query);
    // A page is full unless it is the last one.
    if (page.next_cursor === null) expect(page.results.length).toBeLessThanOrEqual(size);
    else expect(page.results).toHaveLength(size);
    walk.push(page.results);
    if (walk.length > MAX_PAGES) throw new Error(`${subject.path} did not end after ${MAX_PAGES} pages`);
    cursor = page.next_cursor;
    done = cursor === null;
  };
  for (const step of scenario.steps) {
    if (!done) await readPage(step.size);
    for (const op of step.writes) {
      const reference = await write(op);
      if (reference && !done) {
        touched.add(reference);
        coverage.writesDuringWalk++;
        if (op.kind === 'erase') coverage.erasedDuringWalk++;
      }
    }
  }
  while (!done) await readPage(scenario.tail);

  // No page returns a record twice, and the walk follows the (updated_at, id) order.
  for (const page of walk) {
    const references = page.map((r) => r.reference);
    expect(new Set(references).size, `a page repeats a record: ${references}`).toBe(references.length);
  }
  const seen = walk.flat();
  if (walk.length > 1) coverage.multiPageWalks++;
  for (const reference of touched) {
    if (atStart.has(reference) && seen.filter((r) => r.reference === reference).length > 1) coverage.seenAgainAfterAChange++;
  }
  const times = seen.map((r) => r.updated_at as string);
  expect(times, 'updated_at order').toEqual([...times].sort());

  // Every record that existed at the start and was not changed during the walk: seen exactly once, as it was.
  for (const [reference, state] of atStart) {
    if (touched.has(reference)) continue;
    const copies = seen.filter((r) => r.reference === reference);
    expect(copies.length, `${reference} untouched during the walk`).toBe(1);
    expect(subject.state(copies[0]!)).toEqual(state);
  }

  // One catch-up pull from the last updated_at seen: with the walk, it gives every record in its final state,
  // and the same set as the whole list (every record was written after t0).
  const since = times.length > 0 ? times[times.length - 1]! : t0;
  const catchUp = await pullAll(company, subject, since, scenario.tail);
  // updated_since is inclusive: the last record seen comes back (as it was, or later if it changed since).
  if (seen.length > 0) expect(catchUp.flat().map((r) => r.reference)).toContain(seen[seen.length - 1]!.reference);
  const mirror = new Map<string, State>();
  for (const record of seen) mirror.set(record.reference, subject.state(record));
  const afterWalk = new Map(mirror);
  for (const record of catchUp.flat()) mirror.set(record.reference, subject.state(record));
  const full = (await pullAll(company, subject, undefined, 100)).flat();
  const current = new Map(full.map((record) => [record.reference, subject.state(record)]));
  const expected = new Map([...model].map(([reference, record]) => [reference, subject.state(record)]));
  expect(full).toHaveLength(current.size);
  expect(current).toEqual(expected);
  // Each record added or changed during the walk shows in its final state...
  for (const reference of touched)
    expect(mirror.get(reference), `${reference} changed during the walk`).toEqual(expected.get(reference));
  // ...and walk plus catch-up hold exactly the API's current set, every record in its current state.
  expect(mirror).toEqual(current);
  for (const [reference, state] of expected) {
    if (!isDeepStrictEqual(afterWalk.get(reference), state)) coverage.caughtUpOnlyByThePull++;
  }
}

const writeArb: fc.Arbitrary<Write> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'create' as const }) },
  { weight: 3, arbitrary: fc.nat({ max: 999 }).map((pick) => ({ kind: 'change' as const, pick })) },
  { weight: 2, arbitrary: fc.nat({ max: 999 }).map((pick) => ({ kind: 'erase' as const, pick })) },
);
/** Page sizes 1–7, mostly small, so walks are long and writes land in the middle of them. */
const pageSize = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 2 }) },
  { weight: 1, arbitrary: fc.integer({ min: 3, max: 7 }) },
);
const scenario = (maxInitial: number, maxSteps: number): fc.Arbitrary<Scenario> =>
  fc.record({
    initial: fc.integer({ min: 2, max: maxInitial }),
    steps: fc.array(fc.record({ size: pageSize, writes: fc.array(writeArb, { minLength: 1, maxLength: 3 }) }), {
      maxLength: maxSteps,
      size: 'max',
    }),
    tail: pageSize,
  });

/**
 * A run that does each thing at least once, whatever the generator draws: a record changed after the walk passed
 * it (seen again at the end), one erased ahead of the cursor, and an add after the walk's last page (only the
 * catch-up pull sees it).
 */
const everyCase: Scenario = {
  initial: 4,
  steps: [
    { size: 1, writes: [{ kind: 'change', pick: 0 }] },
    { size: 1, writes: [{ kind: 'erase', pick: 2 }] },
    { size: 7, writes: [{ kind: 'create' }] },
    { size: 7, writes: [{ kind: 'change', pick: 1 }] },
  ],
  tail: 2,
};

/**
 * Runs the property, then checks that its runs walked several pages, wrote in the middle of walks, etc. The work
 * is bounded by the number of runs alone (no time budget, so a slow machine runs the same cases, only slower).
 */
async function check(subject: Subject, arbitrary: fc.Arbitrary<Scenario>, numRuns: number) {
  coverage = newCoverage();
  await fc.assert(
    fc.asyncProperty(arbitrary, (s) => run(subject, s)),
    { numRuns, examples: [[everyCase]] },
  );
  expect(coverage.runs).toBeGreaterThanOrEqual(numRuns);
  for (const [what, count] of Object.entries(coverage)) expect(count, what).toBeGreaterThan(0);
}

describe('keyset paging of sync lists while others write', () => {
  it('GET /contacts?updated_since: nothing missed, nothing repeated within a page, final states after one catch-up', async () => {
    // 20 runs take 10–30 s here (idle to loaded); the timeout only catches a hang.
    await check(contacts, scenario(10, 12), 20);
  }, 300_000);

  it('GET /leads?updated_since: the same, with status moves and erasures of the lead’s person', async () => {
    await check(leads, scenario(6, 8), 15);
  }, 300_000);
});

/** The bench's results: their shape, the markdown table and the JSON file. */
import os from 'node:os';
import type { Measured } from './measure';
import { perSecond } from './measure';
import { ownBaselineOf, type Scenario } from './scenarios';
import type { Counts } from './shared';

export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

/** The machine a PostgreSQL bench ran on, as its results file records it (`admin`: a connection to the server). */
export async function postgresMachine(admin: { query: <R>(text: string) => Promise<{ rows: R[] }> }) {
  const postgres = (await admin.query<{ server_version: string }>('show server_version')).rows[0]?.server_version;
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpu_model: cpus[0]?.model ?? 'unknown',
    node: process.version,
    postgres: postgres ?? 'unknown',
    load_average_1m: round(os.loadavg()[0] ?? 0),
  };
}
export const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);

export type ScenarioResult = {
  name: string;
  request: string;
  expected_status: number;
  /** Concurrent connections of its run. */
  connections: number;
  /** Completed responses ÷ the run's measured duration. */
  requests_per_second: number;
  /** autocannon's own "Req/Sec" average: the mean of 1-second samples, lowered when a last partial sample is taken. */
  requests_per_second_sample_mean: number;
  duration_s: number;
  requests_total: number;
  latency_ms: { p50: number; p90: number; p99: number; average: number; max: number };
  throughput_bytes_per_second: number;
  status_counts: Record<string, number>;
  /** Responses that are neither 2xx nor 3xx, plus connection errors and timeouts: must be 0. */
  non_2xx_3xx: number;
  errors: number;
  timeouts: number;
  /** Responses with another status than the expected one (e.g. a 200 where a 304 is benched). */
  unexpected_status: number;
  /** SQL statements sent for one request alone (transaction control excluded). */
  queries_per_request: number;
  /** BEGIN, COMMIT and the like for one request alone (counted on PostgreSQL; PGlite's dialect sends them unseen). */
  transaction_control_per_request: number;
  queries: string[];
  /** Statements counted during the measured run divided by the responses (in-flight requests at the end blur it). */
  queries_per_request_under_load: number;
  /** CPU the server process used during the run, in cores (1 = one core busy all the time; the machine has 2). */
  server_cpu_cores: number;
  /** The server's CPU time during the run ÷ the responses: what one request costs the server, in milliseconds. */
  server_cpu_ms_per_request: number;
  /** The local PostgreSQL server's CPU per request (every backend), null on PGlite (inside the server's own). */
  database_cpu_ms_per_request: number | null;
  /** The server's largest rss during the run (sampled every 100 ms), in MB. */
  server_peak_rss_mb: number;
  /** The same for the autocannon process. PostgreSQL had what was left. */
  load_generator_cpu_cores: number;
  /**
   * Minor page faults per response of the server and of the load generator (Linux; null elsewhere): a page touched
   * for the first time, or again after its memory was given back, about 13 µs each on the machine of issue 39.
   */
  server_faults_per_request: number | null;
  load_generator_faults_per_request: number | null;
  /** The bare route this one is compared with (`bare select 1` for reads, `bare JSON parse` for forms); null for a bare route. */
  baseline: string | null;
  req_per_s_ratio_to_bare: number | null;
  p50_ratio_to_bare: number | null;
  /** Req/s ÷ the hello-world route of the same run (the ceiling of any route). */
  req_per_s_ratio_to_hello: number | null;
  /** Forms: rows the run added to the table the route writes (each 201 is one); null for routes that store nothing. */
  rows_stored: number | null;
};

/** JSON as Biome formats it (line width 130): arrays of plain values on one line when they fit. */
export function toJson(value: unknown): string {
  const item = String.raw`(?:"(?:[^"\\\n]|\\.)*"|-?[0-9][0-9.eE+-]*|true|false|null)`;
  const array = new RegExp(String.raw`^( *)(.*)\[\n((?: *${item},?\n)+) *\](,?)$`, 'gm');
  return JSON.stringify(value, null, 2).replace(array, (whole, indent: string, head: string, body: string, comma: string) => {
    const items = body
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => line.trim().replace(/,$/, ''));
    const line = `${indent}${head}[${items.join(', ')}]${comma}`;
    return line.length <= 130 ? line : whole;
  });
}

/** One scenario's row of the report, from its measured run, its baseline's and the hello-world route's. */
export function resultOf(
  scenario: Scenario,
  measured: Measured,
  counts: Counts,
  baselines: { bare?: Measured; hello?: Measured },
): ScenarioResult {
  const { result, queries, serverCpu, serverCpuSeconds, databaseCpuSeconds, driverCpu, peakRss, stored } = measured;
  const bare = baselines.bare?.result;
  const hello = baselines.hello?.result;
  const statusCounts = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
  const responses = Object.values(statusCounts).reduce((a, b) => a + b, 0);
  const perResponse = (count: number | null) => (count === null || !responses ? null : round(count / responses, 2));
  const expected = statusCounts[String(scenario.expectedStatus)] ?? 0;
  const headers = Object.keys(scenario.headers);
  if (scenario.server === 'uncached') headers.push('answer cache off');
  return {
    name: scenario.name,
    request: `${scenario.method} ${scenario.path}${headers.length ? ` (${headers.join(', ')})` : ''}`,
    expected_status: scenario.expectedStatus,
    connections: measured.connections,
    requests_per_second: round(perSecond(result), 1),
    requests_per_second_sample_mean: round(result.requests.average, 1),
    duration_s: result.duration,
    requests_total: result.requests.total,
    latency_ms: {
      p50: result.latency.p50 ?? Number.NaN,
      p90: result.latency.p90 ?? Number.NaN,
      p99: result.latency.p99 ?? Number.NaN,
      average: round(result.latency.average),
      max: result.latency.max,
    },
    throughput_bytes_per_second: Math.round(result.throughput.average),
    status_counts: statusCounts,
    non_2xx_3xx: result['1xx'] + result['4xx'] + result['5xx'] + result.errors + result.timeouts,
    errors: result.errors,
    timeouts: result.timeouts,
    unexpected_status: responses - expected,
    queries_per_request: counts.queries,
    transaction_control_per_request: counts.transactionControl,
    queries: counts.recent,
    queries_per_request_under_load: responses ? round(queries / responses, 3) : 0,
    server_cpu_cores: round(serverCpu),
    server_cpu_ms_per_request: responses ? round((serverCpuSeconds * 1000) / responses, 3) : 0,
    server_peak_rss_mb: mb(peakRss),
    database_cpu_ms_per_request:
      databaseCpuSeconds === null || !responses ? null : round((databaseCpuSeconds * 1000) / responses, 3),
    load_generator_cpu_cores: round(driverCpu),
    server_faults_per_request: perResponse(measured.serverFaults),
    load_generator_faults_per_request: perResponse(measured.driverFaults),
    baseline: scenario.baseline ?? null,
    req_per_s_ratio_to_bare: bare ? round(perSecond(result) / perSecond(bare), 3) : null,
    p50_ratio_to_bare: bare ? round((result.latency.p50 ?? 0) / (bare.latency.p50 || 1), 2) : null,
    req_per_s_ratio_to_hello: hello ? round(perSecond(result) / perSecond(hello), 3) : null,
    rows_stored: stored,
  };
}

export function markdown(results: ScenarioResult[]): string {
  const ratio = (value: number | null, r: ScenarioResult) => (value === null ? '1 (baseline)' : `${value} (÷ ${r.baseline})`);
  const rows = results.map((r) =>
    [
      r.request,
      r.requests_per_second.toFixed(0),
      r.latency_ms.p50,
      r.latency_ms.p99,
      r.requests_total,
      `${r.non_2xx_3xx}${r.unexpected_status ? ` (+${r.unexpected_status} unexpected status)` : ''}`,
      r.queries_per_request,
      ratio(r.req_per_s_ratio_to_bare, r),
      r.req_per_s_ratio_to_hello ?? '',
      r.server_cpu_ms_per_request,
      r.database_cpu_ms_per_request ?? '—',
      r.server_cpu_cores,
      r.server_peak_rss_mb,
    ].join(' | '),
  );
  return [
    '| Request | Req/s | p50 ms | p99 ms | Requests | Non-2xx/3xx + errors | SQL queries/request | Req/s ÷ bare | Req/s ÷ hello | Server CPU ms/request | Database CPU ms/request | Server CPU (cores) | Server peak rss MB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
}

/** One of issue 14's or issue 28's goals as one engine's run measured it. */
export type Goal = {
  goal: string;
  /** What was measured: a ratio of req/s (the issue's measure), a count, or null when this run does not measure it. */
  measured: number | null;
  /** The same ratio by server CPU per request (the other route's ÷ this one's): less moved by the load generator. */
  measured_by_cpu: number | null;
  target: string;
  met: boolean | null;
  note?: string;
};

/** The writes of the CRM's pipelines and the helpdesk the bench measures (bench/deals.ts, bench/maintenance.ts). */
const integrationWrites = [
  ['POST /deals', 'deal create'],
  ['POST /deals/{reference}/move', 'deal move'],
  ['POST /jobs', 'job create'],
  ['POST /jobs/{reference}/schedule', 'job schedule with block'],
] as const;

/** The writes measured against their own baselines (issue 39), by route and scenario name. */
const ownWrites = [
  ['POST /leads', 'enquiry form'],
  ['POST /bookings', 'booking request'],
  ...integrationWrites,
  ['POST /leases', 'lease create'],
  ['PATCH /rent-payments/{id} received', 'rent payment received'],
  ['POST /contacts (server key)', 'contact create'],
  ['POST /inbound/{token}/whatsapp (a new lead)', 'inbound WhatsApp lead'],
  ['POST …/calendar-imports/{id}/sync (50 events moved)', 'calendar import sync of 50 events'],
] as const;

/**
 * Issue 39: each write against its own baseline (one statement writing the rows it stores, bench/write-baselines.ts):
 * ≥ 0.5× its requests per second, and at most 2× its database CPU per request.
 */
function ownGoals(byName: Map<string, ScenarioResult>): Goal[] {
  return ownWrites.flatMap(([route, name]) => {
    const x = byName.get(name);
    const y = x?.baseline === ownBaselineOf(name) ? byName.get(x.baseline) : undefined;
    const rate = x && y?.requests_per_second ? round(x.requests_per_second / y.requests_per_second, 3) : null;
    const byCpu =
      x && y && x.server_cpu_ms_per_request ? round(y.server_cpu_ms_per_request / x.server_cpu_ms_per_request, 3) : null;
    const database =
      x?.database_cpu_ms_per_request && y?.database_cpu_ms_per_request
        ? round(x.database_cpu_ms_per_request / y.database_cpu_ms_per_request, 2)
        : null;
    const note = y ? `its baseline: ${y.requests_per_second} req/s, ${y.database_cpu_ms_per_request} ms database CPU` : undefined;
    return [
      {
        goal: `${route} ÷ its own baseline`,
        measured: rate,
        measured_by_cpu: byCpu,
        target: '≥ 0.5',
        met: rate === null ? null : rate >= 0.5,
      },
      {
        goal: `${route}: database CPU per request ÷ its own baseline's`,
        measured: database,
        measured_by_cpu: null,
        target: '≤ 2',
        met: database === null ? null : database <= 2,
        ...(note ? { note } : {}),
      },
    ];
  });
}

/** Issue 14's and issue 28's goals from one engine's results (names as in bench/scenarios.ts); `connections` as the run used. */
export function goalsOf(results: ScenarioResult[], connections: number): Goal[] {
  const byName = new Map(results.map((r) => [r.name, r]));
  const ratio = (name: string, base: string) => {
    const x = byName.get(name);
    const y = byName.get(base);
    if (!x || !y?.requests_per_second) return { measured: null, measured_by_cpu: null };
    return {
      measured: round(x.requests_per_second / y.requests_per_second, 3),
      measured_by_cpu: x.server_cpu_ms_per_request ? round(y.server_cpu_ms_per_request / x.server_cpu_ms_per_request, 3) : null,
    };
  };
  const atLeast = (goal: string, name: string, base: string, target: number, note?: string): Goal => {
    const m = ratio(name, base);
    return {
      goal,
      ...m,
      target: `≥ ${target}`,
      met: m.measured === null ? null : m.measured >= target,
      ...(note ? { note } : {}),
    };
  };
  const roundTrips = (goal: string, name: string, most: number): Goal => {
    const r = byName.get(name);
    // Every statement is a round trip, BEGIN and COMMIT included (counted apart on PostgreSQL only).
    const measured = r ? r.queries_per_request + r.transaction_control_per_request : null;
    return { goal, measured, measured_by_cpu: null, target: `≤ ${most}`, met: measured === null ? null : measured <= most };
  };
  const none = (goal: string, name: string): Goal => {
    const r = byName.get(name);
    const measured = r ? r.queries_per_request : null;
    return { goal, measured, measured_by_cpu: null, target: '0', met: measured === null ? null : measured === 0 };
  };
  const hello = 'bare hello world';
  const select = 'bare select 1';
  const insert = 'bare insert';
  return [
    atLeast(
      'a 304 ÷ hello world',
      'listings 304',
      hello,
      0.6,
      `the issue asks it of PGlite at 20 connections; ${connections} here`,
    ),
    atLeast('the listing page ÷ hello world, built', 'listings, page built', hello, 0.3),
    atLeast('the listing page ÷ hello world, from memory', 'listings', hello, 0.3),
    none('statements of a 304', 'listings 304'),
    none('statements of a page from memory', 'listings'),
    atLeast('a 304 ÷ bare select 1', 'listings 304', select, 1),
    atLeast('a built page ÷ bare select 1', 'listings, page built', select, 0.3),
    atLeast('a page from memory ÷ bare select 1', 'listings', select, 0.6, 'uncompressed, as autocannon asks'),
    atLeast('a page from memory ÷ bare select 1, brotli', 'listings, compressed', select, 0.6),
    roundTrips('round trips of POST /leads', 'enquiry form', 3),
    roundTrips('round trips of POST /bookings', 'booking request', 3),
    atLeast('POST /leads ÷ bare insert', 'enquiry form', insert, 0.5),
    atLeast('POST /bookings ÷ bare insert', 'booking request', insert, 0.5),
    // Issue 28: the first answer of a page after a change, and every write at most 3 round trips and ≥ 0.3× the bare
    // insert (the CRM's and the helpdesk's writes run on PostgreSQL only).
    atLeast('a built page ÷ bare select 1 (issue 28)', 'listings, page built', select, 0.15),
    ...integrationWrites.flatMap(([route, name]) => [
      roundTrips(`round trips of ${route}`, name, 3),
      atLeast(`${route} ÷ bare insert`, name, insert, 0.3),
    ]),
    ...ownGoals(byName),
  ];
}

/** The goals of every engine side by side, with each run's load average: what `npm run bench` prints last. */
export function goalsTable(
  runs: Array<{ engine: string; goals: Goal[]; load_average_1m: { before: number; after: number } }>,
): string {
  const cell = (g: Goal | undefined) => {
    if (!g || g.measured === null) return '—';
    const cpu = g.measured_by_cpu === null ? '' : ` (CPU ${g.measured_by_cpu})`;
    return `${g.measured}${cpu}${g.met ? ' ✓' : ''}`;
  };
  const names = [...new Set(runs.flatMap((run) => run.goals.map((g) => g.goal)))];
  const rows = names.map((name) => {
    const goals = runs.map((run) => run.goals.find((g) => g.goal === name));
    const target = goals.find((g) => g)?.target ?? '';
    const notes = [...new Set(goals.flatMap((g) => (g?.note ? [g.note] : [])))];
    return `| ${name}${notes.length ? ` (${notes.join('; ')})` : ''} | ${goals.map(cell).join(' | ')} | ${target} |`;
  });
  const load = runs.map((run) => `${run.engine} ${run.load_average_1m.before} → ${run.load_average_1m.after}`).join('; ');
  return [
    `Issues 14 and 28: goals, measured / goal (✓ met; CPU: the same ratio by server CPU per request). Load average (1 min): ${load}.`,
    '',
    `| Goal | ${runs.map((run) => run.engine).join(' | ')} | Goal |`,
    `|---|${runs.map(() => '---:').join('|')}|---|`,
    ...rows,
  ].join('\n');
}

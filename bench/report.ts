/** The bench's results: their shape, the markdown table and the JSON file. */
import type { Measured } from './measure';
import { perSecond } from './measure';
import type { Scenario } from './scenarios';
import type { Counts } from './shared';

export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
export const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);

export type ScenarioResult = {
  name: string;
  request: string;
  expected_status: number;
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
  queries: string[];
  /** Statements counted during the measured run divided by the responses (in-flight requests at the end blur it). */
  queries_per_request_under_load: number;
  /** CPU the server process used during the run, in cores (1 = one core busy all the time; the machine has 2). */
  server_cpu_cores: number;
  /** The server's CPU time during the run ÷ the responses: what one request costs the server, in milliseconds. */
  server_cpu_ms_per_request: number;
  /** The server's largest rss during the run (sampled every 100 ms), in MB. */
  server_peak_rss_mb: number;
  /** The same for the autocannon process. PostgreSQL had what was left. */
  load_generator_cpu_cores: number;
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
  const { result, queries, serverCpu, serverCpuSeconds, driverCpu, peakRss, stored } = measured;
  const bare = baselines.bare?.result;
  const hello = baselines.hello?.result;
  const statusCounts = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
  const responses = Object.values(statusCounts).reduce((a, b) => a + b, 0);
  const expected = statusCounts[String(scenario.expectedStatus)] ?? 0;
  const headers = Object.keys(scenario.headers);
  return {
    name: scenario.name,
    request: `${scenario.method} ${scenario.path}${headers.length ? ` (${headers.join(', ')})` : ''}`,
    expected_status: scenario.expectedStatus,
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
    queries: counts.recent,
    queries_per_request_under_load: responses ? round(queries / responses, 3) : 0,
    server_cpu_cores: round(serverCpu),
    server_cpu_ms_per_request: responses ? round((serverCpuSeconds * 1000) / responses, 3) : 0,
    server_peak_rss_mb: mb(peakRss),
    load_generator_cpu_cores: round(driverCpu),
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
      r.server_cpu_cores,
      r.server_peak_rss_mb,
    ].join(' | '),
  );
  return [
    '| Request | Req/s | p50 ms | p99 ms | Requests | Non-2xx/3xx + errors | SQL queries/request | Req/s ÷ bare | Req/s ÷ hello | Server CPU ms/request | Server CPU (cores) | Server peak rss MB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
}

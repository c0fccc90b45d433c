/** The bench's results: their shape, the markdown table and the JSON file. */

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
  /** The same for the autocannon process. PostgreSQL had what was left. */
  load_generator_cpu_cores: number;
  /** The bare route this one is compared with (`bare select 1` for reads, `bare JSON parse` for forms); null for a bare route. */
  baseline: string | null;
  req_per_s_ratio_to_bare: number | null;
  p50_ratio_to_bare: number | null;
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
      ratio(r.p50_ratio_to_bare, r),
      r.server_cpu_cores,
    ].join(' | '),
  );
  return [
    '| Request | Req/s | p50 ms | p99 ms | Requests | Non-2xx/3xx + errors | SQL queries/request | Req/s ÷ bare | p50 ÷ bare | Server CPU (cores) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
}

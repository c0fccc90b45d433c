/** autocannon as `npm run bench` drives it: its options and result, and one scenario's warm-up and measured run. */
import { createRequire } from 'node:module';
import type { Scenario } from './scenarios';
import type { Cpu, Reply, ToServer } from './shared';

type Histogram = { average: number; mean: number; stddev: number; min: number; max: number; total: number } & Record<
  string,
  number
>;
export type AutocannonResult = {
  duration: number;
  requests: Histogram;
  latency: Histogram;
  throughput: Histogram;
  errors: number;
  timeouts: number;
  mismatches: number;
  non2xx: number;
  resets: number;
  '1xx': number;
  '2xx': number;
  '3xx': number;
  '4xx': number;
  '5xx': number;
  statusCodeStats: Record<string, { count: number }>;
};
type AutocannonOptions = {
  url: string;
  connections: number;
  duration: number;
  /** Requests to send; overrides the duration. */
  amount?: number;
  method?: string;
  headers?: Record<string, string>;
  requests?: Array<{ setupRequest: (request: { body?: string; path?: string }) => { body?: string; path?: string } }>;
  pipelining?: number;
  timeout?: number;
};
const autocannon = createRequire(import.meta.url)('autocannon') as (options: AutocannonOptions) => Promise<AutocannonResult>;

export const perSecond = (result: AutocannonResult) => result.requests.total / result.duration;
/** Lets requests still in flight when autocannon stopped finish their queries. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 250));
const cpuSeconds = (a: Cpu, b: Cpu) => (b.user - a.user + b.system - a.system) / 1e6;

export type Measured = {
  result: AutocannonResult;
  /** The connections used (the run's, or fewer for a route with a fixed number of requests). */
  connections: number;
  /** Statements the server counted during the run. */
  queries: number;
  /** Server and load generator CPU during the run, in cores; the server's CPU seconds in all. */
  serverCpu: number;
  serverCpuSeconds: number;
  driverCpu: number;
  /** The server's largest rss during the run. */
  peakRss: number;
  /** Rows the run added to the scenario's table; null when it stores none. */
  stored: number | null;
};

/** The count once writes still in flight have landed (it stays the same for 300 ms). */
async function rowsOf(ask: (type: ToServer['type']) => Promise<Reply>, table: 'leads' | 'bookings'): Promise<number> {
  for (let last = -1; ; ) {
    const now = (await ask('rows')).rows?.[table] ?? 0;
    if (now === last) return now;
    last = now;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/** Warms the scenario up, then measures it: autocannon on `origin`, the server's CPU, statements and memory around it. */
export async function measure(
  origin: string,
  scenario: Scenario,
  settings: { seconds: number; warmupSeconds: number; connections: number },
  ask: (type: ToServer['type']) => Promise<Reply>,
): Promise<Measured> {
  const { body, request } = scenario;
  const connections = Math.min(settings.connections, scenario.maxConnections ?? settings.connections);
  // autocannon refuses an amount below the connections: each takes at least one request.
  const amount = scenario.amount && {
    warmup: Math.max(scenario.amount.warmup, connections),
    run: Math.max(scenario.amount.run, connections),
  };
  const setup = request ?? (body ? () => ({ body: body() }) : undefined);
  const options: Omit<AutocannonOptions, 'duration'> = {
    url: `${origin}${scenario.path}`,
    connections,
    method: scenario.method,
    headers: scenario.headers,
    ...(setup ? { requests: [{ setupRequest: (sent) => ({ ...sent, ...setup() }) }] } : {}),
  };
  process.stdout.write(`${scenario.name}: warm-up ${amount ? `${amount.warmup} requests` : `${settings.warmupSeconds} s`}, `);
  await autocannon({ ...options, duration: settings.warmupSeconds, ...(amount ? { amount: amount.warmup } : {}) });
  await settle();
  const storedBefore = scenario.stores ? await rowsOf(ask, scenario.stores) : 0;
  const start = await ask('reset');
  const driverStart = process.cpuUsage();
  const wallStart = performance.now();
  process.stdout.write(`run ${amount ? `${amount.run} requests` : `${settings.seconds} s`} … `);
  const result = await autocannon({ ...options, duration: settings.seconds, ...(amount ? { amount: amount.run } : {}) });
  await settle();
  const end = await ask('counts');
  const wall = (performance.now() - wallStart) / 1000;
  const stored = scenario.stores ? (await rowsOf(ask, scenario.stores)) - storedBefore : null;
  console.log(`${Math.round(perSecond(result))} req/s`);
  const serverCpuSeconds = cpuSeconds(start.cpu, end.cpu);
  return {
    result,
    connections,
    queries: end.counts.queries,
    serverCpu: serverCpuSeconds / wall,
    serverCpuSeconds,
    driverCpu: cpuSeconds(driverStart, process.cpuUsage()) / wall,
    peakRss: end.peak_rss,
    stored,
  };
}

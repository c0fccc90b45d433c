/** What the bench's two processes share: the IPC messages and how memory is read. */
export type Counts = { queries: number; transactionControl: number; recent: string[] };
export type Memory = { rss: number; heapUsed: number; heapTotal: number; external: number };
/** CPU time the process has used so far (user + system), in microseconds. */
export type Cpu = { user: number; system: number };

/** Every message is answered with the counts, memory and CPU so far; `reset` zeroes the counts first. */
export type ToServer = { id: number; type: 'reset' | 'counts' | 'stop' };
export type FromServer =
  | { type: 'ready'; port: number; pool_max: number; publishable_key: string; server_key: string }
  | { type: 'failed'; message: string }
  | { id: number; type: 'reply'; counts: Counts; memory: Memory; cpu: Cpu };

export const POOL_MAX = 10; // openPostgres's default: the pool the Node server has in production.

export function memoryNow(): Memory {
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  return { rss, heapUsed, heapTotal, external };
}

/** A positive whole number from the environment, or `fallback` when unset. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

/** Runs a bench's `main` and exits with its code (1 and the error printed when it throws). */
export async function exitWith(main: () => Promise<number>): Promise<never> {
  const code = await main().catch((error: unknown) => {
    console.error(error);
    return 1;
  });
  process.exit(code);
}

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

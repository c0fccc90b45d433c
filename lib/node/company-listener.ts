import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { CompanyCache, companyChannel } from '../company-cache';
import type { DatabaseHandle } from '../db/index';

/** How long to wait before reconnecting a lost listening connection: doubles from the first to the last. */
const reconnectDelaysMs = { first: 100, last: 5_000 };

export type CompanyListener = { cache: CompanyCache; close(): Promise<void> };

/**
 * The Node process's company cache, fed by the database's notifications (migration 0016): PGlite's own
 * `listen` (delivered with the answer to the committing statement, so nothing to sync), or on PostgreSQL a
 * dedicated `pg` client outside the pool. When that client errs or ends, the cache stops serving and drops
 * every row, and the client reconnects (with a growing delay); rows are served again once LISTEN is back.
 */
export async function listenForCompanyChanges(handle: DatabaseHandle): Promise<CompanyListener> {
  const pglite = (handle as { pglite?: PGlite }).pglite;
  if (pglite) {
    const cache = new CompanyCache({ mode: 'notified' });
    const unlisten = await pglite.listen(companyChannel, (payload) => cache.invalidate(payload));
    cache.setListening(true);
    const close = async () => {
      cache.setListening(false);
      await unlisten();
    };
    return { cache, close };
  }
  if (!handle.connectionString) {
    // A database this process cannot listen to: every request asks it (never stale).
    return { cache: new CompanyCache({ mode: 'notified' }), close: async () => {} };
  }
  return postgresListener(handle.connectionString);
}

async function postgresListener(connectionString: string): Promise<CompanyListener> {
  let client: pg.Client | undefined;
  let closed = false;
  let delay = reconnectDelaysMs.first;
  let timer: NodeJS.Timeout | undefined;
  const cache = new CompanyCache({
    mode: 'notified',
    // A round trip on the listening connection: the notifications committed before it arrive before its answer.
    sync: async () => {
      if (!client) throw new Error('not listening');
      await client.query('select 1');
    },
  });

  const lost = (lostClient: pg.Client, error?: Error) => {
    if (client !== lostClient) return;
    client = undefined;
    cache.setListening(false);
    lostClient.end().catch(() => {});
    if (closed) return;
    if (error) console.error(`company cache: listening connection lost (${error.message}); reconnecting`);
    timer = setTimeout(connect, delay);
    timer.unref();
    delay = Math.min(delay * 2, reconnectDelaysMs.last);
  };

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString, application_name: 'company-cache-listener' });
    client = next;
    next.on('notification', (message) => {
      if (message.channel === companyChannel && message.payload) cache.invalidate(message.payload);
    });
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next));
    try {
      await next.connect();
      await next.query(`listen ${companyChannel}`);
    } catch (error) {
      lost(next, error as Error);
      return;
    }
    if (client !== next || closed) return;
    delay = reconnectDelaysMs.first;
    cache.setListening(true);
  }

  await connect();
  return {
    cache,
    close: async () => {
      closed = true;
      clearTimeout(timer);
      const open = client;
      client = undefined;
      cache.setListening(false);
      await open?.end().catch(() => {});
    },
  };
}

/**
 * A fresh PostgreSQL database for one bench run, dropped when the run ends, fails or is interrupted (Ctrl-C);
 * `BENCH_KEEP_DATABASE=1` keeps it, to look at its plans after the run.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import pg from 'pg';

export type BenchDatabase = {
  name: string;
  /** The connection string of the new database. */
  url: string;
  /** A connection to the server (not to the new database), for its version and the drop. */
  admin: pg.Client;
  /** Runs `close` (the run's servers and pools), then drops the database once its backends have gone. Once only. */
  cleanup: () => Promise<void>;
};

/**
 * Creates `<prefix>_<random>` on DATABASE_URL's server (default the local one). `close` is called first on cleanup:
 * it ends what uses the database, so the drop finds no backend (a forced drop would make them log an error).
 */
export async function freshDatabase(prefix: string, close: () => Promise<void>): Promise<BenchDatabase> {
  const baseUrl = process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  let created = false;
  let cleaning: Promise<void> | undefined;
  const cleanup = () => {
    cleaning ??= (async () => {
      await close().catch((error: unknown) => console.error('closing the bench:', error));
      if (created && process.env.BENCH_KEEP_DATABASE === '1') {
        console.log(`kept database ${name} (BENCH_KEEP_DATABASE=1): drop it when done`);
      } else if (created) {
        for (let i = 0; i < 40; i++) {
          const { rows } = await admin.query('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
          if (rows[0].n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await admin.query(`drop database if exists "${name}" with (force)`).then(
          () => console.log(`dropped database ${name}`),
          (error: unknown) => console.error(`could not drop ${name}:`, error),
        );
      }
      await admin.end().catch(() => {});
    })();
    return cleaning;
  };
  // `on`, not `once`: Ctrl-C reaches this process twice (from the terminal and relayed by tsx).
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (cleaning) return;
      console.error(`\n${signal}: cleaning up`);
      void cleanup().finally(() => process.exit(130));
    });
  }
  await admin.query(`create database "${name}"`);
  created = true;
  console.log(`created database ${name}`);
  return { name, url: url.toString(), admin, cleanup };
}

/** Stops an HTTP server: a request in flight (after Ctrl-C) may finish first; keep-alive connections are closed at once. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 2000).unref();
  });
}

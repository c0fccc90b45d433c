import { Kysely, type KyselyConfig, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../../schema/db';
import { type DatabaseHandle, dateOid, keepText, runScriptSimpleProtocol } from './index';
import { preparedName } from './prepared';

/**
 * A pg client that sends the texts lib/db/prepared.ts names (its prepared statements, and any query or write sent
 * again) as named statements: the server parses and plans each once per connection, then only binds and runs it.
 * Every other query is sent as it comes.
 */
export class PreparingClient extends pg.Client {
  /** Texts this connection sends unnamed again: their kept plan was refused after a table changed shape. */
  private readonly unnamed = new Set<string>();

  // biome-ignore lint/suspicious/noExplicitAny: pg's query() has many overloads; only (text, values) is changed.
  override query(...args: any[]): any {
    const [text, values, callback] = args;
    const name =
      typeof text === 'string' && Array.isArray(values) && callback === undefined && !this.unnamed.has(text)
        ? preparedName(text)
        : undefined;
    if (name) {
      return super.query({ name, text, values }).catch((error: { code?: string }) => {
        // A table the statement reads changed shape since this connection prepared it (a migration added a column
        // while the server ran): PostgreSQL refuses the kept plan for good ("cached plan must not change result
        // type", 0A000). The text is sent unnamed from then on, this time included (inside a transaction that the
        // error aborted, the retry fails as the statement did).
        if (error?.code !== '0A000') throw error;
        this.unnamed.add(text);
        return super.query(text, values);
      });
    }
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    return (super.query as (...a: any[]) => any)(...args);
  }
}

/**
 * The connection string with `sslmode=prefer`, `require` or `verify-ca` spelled as what pg 8 does with them:
 * `verify-full` (the server's certificate and host name are checked). pg 8 treats those modes as aliases of
 * verify-full and prints a SECURITY WARNING on each process's first connection (its next major version gives them
 * libpq's weaker meaning); naming the mode it uses keeps today's checks, silences the warning and survives that
 * change. A string that chose `uselibpqcompat` (libpq's meanings) or any other mode is left as written.
 */
export function explicitSslMode(connectionString: string): string {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    return connectionString;
  }
  const mode = url.searchParams.get('sslmode');
  if (!mode || !['prefer', 'require', 'verify-ca'].includes(mode) || url.searchParams.has('uselibpqcompat')) {
    return connectionString;
  }
  url.searchParams.set('sslmode', 'verify-full');
  return url.toString();
}

/**
 * The pool of `openPostgres` (prepared statements sent named, dates kept as text, idle errors logged): the bench
 * builds its counted pool with it too, so it measures what the server runs.
 */
export function postgresPool(connectionString: string, max = 10): pg.Pool {
  const pool = new pg.Pool({
    connectionString: explicitSslMode(connectionString),
    Client: PreparingClient,
    max,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === dateOid ? keepText : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client whose socket closes must not become an unhandled error that kills the process.
  pool.on('error', (error) => console.error('postgres pool error:', error.message));
  return pool;
}

/** A PostgreSQL server through `pg` (the Node server with DATABASE_URL, tests and CI). */
export function openPostgres(
  connectionString: string,
  options: { max?: number; log?: KyselyConfig['log'] } = {},
): DatabaseHandle {
  const pool = postgresPool(connectionString, options.max);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: options.log });
  return { db, engine: 'postgres', connectionString, runScript: runScriptSimpleProtocol, close: () => db.destroy() };
}

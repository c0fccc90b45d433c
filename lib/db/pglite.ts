import { PGlite, parse, protocol, type Results } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import {
  type Dialect,
  type Driver,
  Kysely,
  type KyselyConfig,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
} from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import type { Database } from '../../schema/db';
import { type DatabaseHandle, dateOid, keepText } from './index';
import { preparedName } from './prepared';

/** PGLITE_SHARED_BUFFERS unless set (docs/performance.md, "Memory of the embedded server": 32 MB against 128 MB). */
export const defaultSharedBuffers = '32MB';

/**
 * Embedded PostgreSQL (PGlite, WASM) for `npm start` and the tests. PGlite is one session in one process:
 * the dialect serialises Kysely's connections, and nothing else may open the same data folder.
 */
export async function openPGlite(
  options: { dataDir?: string; loadDataDir?: Blob | File; log?: KyselyConfig['log']; sharedBuffers?: string } = {},
): Promise<DatabaseHandle & { pglite: PGlite }> {
  // While PGlite opens, a timer keeps Node's event loop alive. PGlite awaits V8's compiling of its WebAssembly, which
  // no libuv handle stands for: with nothing else alive, Node leaves the loop and drains its background tasks, and
  // then runs the rest of the opening inside that drain, waiting again for every task it started (V8 compiling the
  // WebAssembly's hot functions with its optimising tier) before it turns the loop again. The next task after the
  // opening (a file read, a timer, the first request) waited those 0.25–2 s (issue 39; docs/performance.md).
  const alive = setInterval(() => {}, 60_000);
  try {
    // btree_gist: the bookings' exclusion constraint (migration 0006) compares a listing id beside the dates.
    // pg_trgm: the listings' search text and its GIN index of trigrams (migration 0050).
    const pglite = await PGlite.create({
      dataDir: options.dataDir,
      loadDataDir: options.loadDataDir,
      extensions: { btree_gist, pg_trgm },
      // PostgreSQL's buffer pool lives in this process's memory (WebAssembly): smaller than PostgreSQL's default
      // 128 MB, as the embedded database is small and the operating system caches its files (issue 28).
      // The WAL a checkpoint keeps for reuse (lib/node/checkpoint.ts: PGlite has no checkpointer, the server's job and
      // the tests checkpoint instead): 4 files of 16 MB after one, where PostgreSQL's default of 1 GB keeps up to 64.
      startParams: [
        ...PGlite.defaultStartParams,
        ...['-c', `shared_buffers=${options.sharedBuffers ?? defaultSharedBuffers}`],
        ...['-c', 'max_wal_size=64MB', '-c', 'min_wal_size=32MB'],
      ],
      parsers: { [dateOid]: keepText },
    });
    return pgliteHandle(pglite, { log: options.log });
  } finally {
    clearInterval(alive);
  }
}

/**
 * The session of one PGlite, as every handle on it uses it: its prepared statements ({@link preparing}: a named
 * statement exists once per session) and one driver, whose queue serialises the handles' connections, so a
 * transaction of one handle never takes in another's statements.
 */
type Session = { driver: Driver };
const sessions = new WeakMap<PGlite, Session>();

function sessionOf(pglite: PGlite): Session {
  let session = sessions.get(pglite);
  if (!session) {
    session = { driver: new PGliteDialect(preparing(pglite)).createDriver() };
    sessions.set(pglite, session);
  }
  return session;
}

/**
 * A handle on an open PGlite, with a Kysely of its own (its own `log`). Closing it closes the PGlite, unless
 * `keepOpen`: then the PGlite stays open for the other handles on it (the tests' one PGlite per process,
 * test/support/harness.ts), and the handle only stops using it.
 */
export function pgliteHandle(
  pglite: PGlite,
  options: { log?: KyselyConfig['log']; keepOpen?: boolean } = {},
): DatabaseHandle & { pglite: PGlite } {
  const { driver } = sessionOf(pglite);
  const shared: Driver = options.keepOpen
    ? new Proxy(driver, {
        get: (target, property, receiver) => {
          if (property === 'destroy') return async () => {};
          const value = Reflect.get(target, property, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      })
    : driver;
  const dialect: Dialect = {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => shared,
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createIntrospector: (db) => new PostgresIntrospector(db),
  };
  const db = new Kysely<Database>({ dialect, log: options.log });
  return {
    db,
    pglite,
    engine: 'pglite',
    // Migrations run inside the migrator's transaction; PGlite has a single session, so exec() joins it.
    runScript: async (_executor, script) => {
      await pglite.exec(script);
    },
    close: () => db.destroy(),
  };
}

/**
 * The PGlite the dialect queries through: this process's prepared statements (lib/db/prepared.ts) are sent as named
 * statements, parsed and planned once (PGlite's own query() parses and plans every text each time, in this process);
 * every other query goes to PGlite's query() unchanged. The protocol exchange is PGlite.query()'s, with the statement
 * named: Parse and Describe once, then Bind, Describe, Execute and Sync under PGlite's query lock.
 */
function preparing(pglite: PGlite): PGlite {
  const parameterTypes = new Map<string, number[]>();
  const { serialize } = protocol;
  const send = (message: Uint8Array) => pglite.execProtocolStream(message, { syncToFs: false });
  const named = (name: string, text: string, params: unknown[]): Promise<Results> =>
    pglite.runExclusive(async () => {
      const messages = [];
      try {
        let types = parameterTypes.get(name);
        if (!types) {
          await send(serialize.parse({ name, text }));
          types = parse.parseDescribeStatementResults(await send(serialize.describe({ type: 'S', name })));
          parameterTypes.set(name, types);
        }
        const values = params.map((value, i) => {
          if (value === null || value === undefined) return null;
          const serializer = pglite.serializers[types[i] as number];
          return serializer ? serializer(value) : String(value);
        });
        messages.push(
          ...(await send(serialize.bind({ statement: name, values }))),
          ...(await send(serialize.describe({ type: 'P' }))),
          ...(await send(serialize.execute({}))),
        );
      } finally {
        messages.push(...(await send(serialize.sync())));
      }
      await pglite.syncToFs();
      return parse.parseResults(messages, pglite.parsers)[0] as Results;
    });
  return new Proxy(pglite, {
    get(target, property, receiver) {
      if (property !== 'query') {
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (text: string, params?: unknown[], queryOptions?: unknown) => {
        const name = queryOptions === undefined ? preparedName(text) : undefined;
        return name ? named(name, text, params ?? []) : target.query(text, params, queryOptions as never);
      };
    },
  });
}

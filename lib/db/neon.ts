import { neon, neonConfig, type NeonQueryFunction, Pool, types } from '@neondatabase/serverless';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresDialect,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { Database } from '../../schema/db';
import { type DatabaseHandle, dateOid, keepText, runScriptSimpleProtocol } from './index';

/**
 * Neon serverless Postgres. On Workers a pool may not outlive the request that opened it, so the Worker opens one per
 * request and closes it when the response is done. With `readsOverHttp` (a request that reads: lib/worker.ts), a
 * statement sent on its own (not in a transaction) that reads, and records no more than rows of its own reading (a
 * personal-data read's audit row, lib/audit.ts), goes over Neon's SQL over HTTP instead (one `fetch`, its answer
 * JSON): no WebSocket is opened for it, and no PostgreSQL startup is exchanged and parsed in the isolate, which is most
 * of what a read costs there (docs/performance.md, "At the edge"). Writes, and every statement of a transaction, go
 * through the WebSocket pool (DESIGN.md: HTTP for one-shot reads). Without it every statement goes through the pool:
 * for a request that writes anyway, a read over HTTP before the WebSocket opens adds a fetch to what the WebSocket
 * costs (POST /bookings 14.2 → 16.5 ms of CPU in workerd).
 */
export function openNeon(connectionString: string, options: { readsOverHttp?: boolean } = {}): DatabaseHandle {
  const pool = new Pool({ connectionString, max: 1, types: { getTypeParser } });
  pool.on('error', (error: Error) => console.error('neon pool error:', error.message));
  const http = httpReads && options.readsOverHttp ? neon(connectionString, { fullResults: true }) : undefined;
  // The Neon Pool is pg-compatible; Kysely's PostgresDialect only needs connect()/query()/release().
  const db = new Kysely<Database>({ dialect: new NeonDialect({ pool: pool as never }, http) });
  return { db, engine: 'neon', runScript: runScriptSimpleProtocol, close: () => db.destroy() };
}

/** The type parsers of both paths: a `date` kept as its text, as on every engine (lib/db/index.ts). */
const getTypeParser = ((oid: number, format?: 'text' | 'binary') =>
  oid === dateOid ? keepText : types.getTypeParser(oid, format)) as typeof types.getTypeParser;

type HttpQuery = NeonQueryFunction<false, true>;

/**
 * A one-shot read: one statement that starts as a query and names nothing that changes rows already stored, locks,
 * or holds a session's state (`update`, `delete`, `merge`, `for update` and `for share`, `select … into` (a new table),
 * sequences, settings, advisory locks, notifications; the words are matched whole, so `updated_at` is no write). Its
 * data-modifying CTEs may only `insert`: the rows a read records of itself, such as the audit row a personal-data read
 * writes in its own statement (lib/audit.ts `readAuditCte`). Outside a transaction the statement is its own
 * transaction over HTTP as over the WebSocket, so the read and its audit row are stored together or not at all.
 * Anything else is taken for a write; wrongly so costs only the WebSocket a read over HTTP would have saved.
 */
export function isRead(text: string): boolean {
  return (
    /^\s*\(?\s*(select|with)\b/i.test(text) &&
    !/\b(update|delete|merge|nextval|setval|set_config|lock|share|pg_advisory_\w+|pg_notify|notify|listen)\b/i.test(text) &&
    // `into` only as an insert's: `select … into` makes a table.
    !/(?<!\binsert\s+)\binto\b/i.test(text) &&
    !/;\s*\S/.test(text)
  );
}

class NeonDialect extends PostgresDialect {
  readonly #http: HttpQuery | undefined;
  constructor(config: ConstructorParameters<typeof PostgresDialect>[0], http: HttpQuery | undefined) {
    super(config);
    this.#http = http;
  }
  override createDriver(): Driver {
    const driver = super.createDriver();
    return this.#http ? new NeonDriver(driver, this.#http) : driver;
  }
}

/**
 * Kysely's PostgreSQL driver (the WebSocket pool) with reads outside transactions sent over HTTP. Each statement Kysely
 * runs outside a transaction acquires a connection of its own; the pool's connection is taken only when a write or a
 * transaction needs it.
 */
class NeonDriver implements Driver {
  constructor(
    private readonly pool: Driver,
    private readonly http: HttpQuery,
  ) {}
  init(): Promise<void> {
    return this.pool.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    return new NeonConnection(this.pool, this.http);
  }
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await this.pool.beginTransaction(await pooled(connection), settings);
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.pool.commitTransaction(await pooled(connection));
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await this.pool.rollbackTransaction(await pooled(connection));
  }
  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.pool.savepoint?.(await pooled(connection), name, compile);
  }
  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await this.pool.rollbackToSavepoint?.(await pooled(connection), name, compile);
  }
  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await this.pool.releaseSavepoint?.(await pooled(connection), name, compile);
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const held = (connection as NeonConnection).held;
    if (held) await this.pool.releaseConnection(held);
  }
  destroy(): Promise<void> {
    return this.pool.destroy();
  }
}

const pooled = (connection: DatabaseConnection) => (connection as NeonConnection).pooled();

class NeonConnection implements DatabaseConnection {
  /** The pool's connection, once a write or a transaction took it: every later statement goes through it. */
  held: DatabaseConnection | undefined;
  constructor(
    private readonly pool: Driver,
    private readonly http: HttpQuery,
  ) {}
  async pooled(): Promise<DatabaseConnection> {
    this.held ??= await this.pool.acquireConnection();
    return this.held;
  }
  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.held || !isRead(query.sql)) return (await this.pooled()).executeQuery<R>(query);
    const result = await this.http.query(query.sql, query.parameters as unknown[], { types: { getTypeParser } });
    return { rows: result.rows as R[] };
  }
  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    yield* (await this.pooled()).streamQuery<R>(query, chunkSize);
  }
}

let proxyConfigured: string | undefined;
/** Reads go over HTTP unless a local WebSocket proxy was named without an HTTP stand-in beside it. */
let httpReads = true;
/**
 * Points the Neon driver at local stand-ins (plain ws:// and http://, no TLS, no pipelining): a WebSocket-to-TCP proxy
 * and, when given, a stand-in of Neon's SQL over HTTP (test/support/neon-http.ts). Without the latter every statement
 * goes through the WebSocket, as before reads went over HTTP.
 */
export function useNeonProxy(proxy: string, httpProxy?: string): void {
  httpReads = Boolean(httpProxy);
  const key = `${proxy} ${httpProxy ?? ''}`;
  if (proxyConfigured === key) return;
  neonConfig.wsProxy = (host, port) => `${proxy}/v1?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
  if (httpProxy) neonConfig.fetchEndpoint = () => `http://${httpProxy}/sql`;
  proxyConfigured = key;
}

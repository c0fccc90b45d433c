/**
 * Test-support server: a stand-in for Neon's SQL over HTTP in front of a local PostgreSQL, so the Workers' reads
 * (lib/db/neon.ts) run in workerd as they do against Neon. Written from Neon's proxy, which serves that protocol
 * (github.com/neondatabase/neon, proxy/src/serverless/sql_over_http.rs), and from the client that speaks it
 * (@neondatabase/serverless 1.2.0, `neon()`):
 *
 * - `POST /sql`, the database named by the `Neon-Connection-String` header (here: loopback hosts only, so a test
 *   helper is never an open relay), the body `{"query", "params"}` or `{"queries": [...]}` (a batch: one transaction,
 *   its isolation from `Neon-Batch-Isolation-Level`, `Neon-Batch-Read-Only`, `Neon-Batch-Deferrable`);
 * - parameters sent as PostgreSQL text (the proxy's `json_to_pg_text`: null stays NULL, a string as itself, a number or
 *   boolean as its text, anything else as JSON), their types left to the server to infer;
 * - an answer per statement: `command` and `rowCount` from the command tag, `rowAsArray`, `fields` (`name`,
 *   `dataTypeID`, `tableID`, `columnID`, `dataTypeSize`, `dataTypeModifier`, `format: "text"`) and `rows`, each value
 *   PostgreSQL's text (`Neon-Raw-Text-Output: true`, as the client always asks), as arrays (`Neon-Array-Mode: true`)
 *   or objects by name; a batch's answers as `{"results": [...]}`;
 * - a PostgreSQL error as 400 with its fields: `message`, `code`, `detail`, `hint`, `position`, `internalPosition`,
 *   `internalQuery`, `severity`, `where`, `table`, `column`, `schema`, `dataType`, `constraint`, `file`, `line`,
 *   `routine`.
 *
 * Assumed, not served: JSON-typed output (`Neon-Raw-Text-Output` other than `true`: a 400 here), JWT authorisation,
 * connection pooling headers and response size limits.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';

export interface NeonHttp {
  port: number;
  /** Statements answered since the start (a batch counts each of its statements). */
  readonly statements: number;
  close(): Promise<void>;
}

const loopback = new Set(['127.0.0.1', 'localhost']);
/** Every value as PostgreSQL's text, as Neon's proxy answers with raw text output. */
const asText = { getTypeParser: () => (value: string) => value };

/** The batch isolation levels the proxy accepts (`map_header_to_isolation_level`), as SQL. */
const isolation: Record<string, string> = {
  Serializable: 'serializable',
  ReadUncommitted: 'read uncommitted',
  ReadCommitted: 'read committed',
  RepeatableRead: 'repeatable read',
};

type Statement = { query: string; params?: unknown[]; arrayMode?: boolean };

function pgText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function errorBody(error: unknown): Record<string, unknown> {
  const e = error as pg.DatabaseError;
  return {
    message: e.message,
    code: e.code,
    detail: e.detail,
    hint: e.hint,
    position: e.position,
    internalPosition: e.internalPosition,
    internalQuery: e.internalQuery,
    severity: e.severity,
    where: e.where,
    table: e.table,
    column: e.column,
    schema: e.schema,
    dataType: e.dataType,
    constraint: e.constraint,
    file: e.file,
    line: e.line,
    routine: e.routine,
  };
}

async function bodyOf(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** Starts the stand-in on 127.0.0.1 (a free port). */
export async function startNeonHttp(): Promise<NeonHttp> {
  const pools = new Map<string, pg.Pool>();
  let statements = 0;

  function poolFor(connectionString: string): pg.Pool | undefined {
    if (!loopback.has(new URL(connectionString).hostname)) return undefined;
    let pool = pools.get(connectionString);
    if (!pool) {
      // Idle connections close soon: the workerd tests check that no connection of a Worker's name stays open.
      pool = new pg.Pool({ connectionString, max: 4, idleTimeoutMillis: 200 });
      pool.on('error', () => undefined);
      pools.set(connectionString, pool);
    }
    return pool;
  }

  async function run(client: pg.PoolClient, statement: Statement, arrayMode: boolean) {
    const result = await client.query({
      text: statement.query,
      values: (statement.params ?? []).map(pgText),
      rowMode: (statement.arrayMode ?? arrayMode) ? 'array' : undefined,
      types: asText,
    } as pg.QueryConfig);
    statements++;
    return {
      command: result.command,
      rowCount: result.rowCount,
      rowAsArray: statement.arrayMode ?? arrayMode,
      fields: result.fields.map((f) => ({
        name: f.name,
        dataTypeID: f.dataTypeID,
        tableID: f.tableID,
        columnID: f.columnID,
        dataTypeSize: f.dataTypeSize,
        dataTypeModifier: f.dataTypeModifier,
        format: 'text',
      })),
      rows: result.rows,
    };
  }

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.method !== 'POST' || request.url !== '/sql') return void send(404, { message: 'not found' });
    const header = (name: string) => request.headers[name.toLowerCase()] as string | undefined;
    const pool = poolFor(header('Neon-Connection-String') ?? 'postgresql://-');
    if (!pool) return void send(400, { message: 'the stand-in serves loopback databases only' });
    if (header('Neon-Raw-Text-Output') !== 'true') {
      return void send(400, { message: 'the stand-in answers raw text output only (Neon-Raw-Text-Output: true)' });
    }
    const arrayMode = header('Neon-Array-Mode') === 'true';
    const payload = (await bodyOf(request)) as Statement & { queries?: Statement[] };
    const client = await pool.connect();
    try {
      if (!payload.queries) return void send(200, await run(client, payload, arrayMode));
      const level = isolation[header('Neon-Batch-Isolation-Level') ?? ''];
      await client.query(
        `begin${level ? ` isolation level ${level}` : ''}${header('Neon-Batch-Read-Only') === 'true' ? ' read only' : ''}` +
          `${header('Neon-Batch-Deferrable') === 'true' ? ' deferrable' : ''}`,
      );
      try {
        const results = [];
        for (const statement of payload.queries) results.push(await run(client, statement, arrayMode));
        await client.query('commit');
        send(200, { results });
      } catch (error) {
        await client.query('rollback');
        throw error;
      }
    } catch (error) {
      send(400, errorBody(error));
    } finally {
      client.release();
    }
  }

  const server = createServer((request, response) => {
    answer(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    get statements() {
      return statements;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...pools.values()].map((pool) => pool.end()));
    },
  };
}

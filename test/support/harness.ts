import { readFile } from 'node:fs/promises';
import type { Context } from 'hono';
import { type KyselyConfig, type LogEvent, sql } from 'kysely';
import { inject } from 'vitest';
import { buildApp } from '../../functions/app';
import { afterResponsesSettled } from '../../lib/request-lifecycle';
import { randomToken, sha256 } from '../../lib/crypto';
import { newDetailsKey } from '../../lib/crypto-jwe';
import type { DatabaseHandle } from '../../lib/db/index';
import type { PGlite } from '@electric-sql/pglite';
import { openPGlite, pgliteHandle } from '../../lib/db/pglite';
import { checkpointIfWalGrown } from '../../lib/node/checkpoint';
import { openPostgres } from '../../lib/db/postgres';
import type { AppEnv } from '../../lib/env';
import { createNodePlatform, type NodePlatform } from '../../lib/node/platform';
import type { HostResolver } from '../../lib/outbound/guard';
import { outsideDns } from './outside-dns';
import type { RateLimiter } from '../../lib/ratelimit/index';
import { MemoryRateLimiter } from '../../lib/ratelimit/memory';
import { newSecretKey } from '../../lib/webhooks/secrets';
import demoCatalogue from '../../functions/catalogue/demo-catalogue.json' with { type: 'json' };

/**
 * A Kysely `log` that appends each statement sent to the list `into()` gives at that moment (none: not recording).
 * Failed statements count (they were sent); transaction control is not a query of the request's own.
 */
export function statementLog(into: () => string[] | undefined): (event: LogEvent) => void {
  return (event) => {
    const list = into();
    if (list && !/^\s*(begin|commit|rollback|savepoint|release)\b/i.test(event.query.sql)) list.push(event.query.sql);
  };
}

/**
 * A Kysely `log` counting round trips as issue 28 does: every statement sent (each is a message the server answers
 * before the next), transaction control (BEGIN, COMMIT, ROLLBACK, SAVEPOINT) included, failed statements too.
 */
export function tripLog(into: () => string[] | undefined): (event: LogEvent) => void {
  return (event) => {
    into()?.push(event.query.sql);
  };
}

/**
 * The test files' database: on PostgreSQL the shared database (or, `own`, one of the file's own); on PGlite one copy
 * of the migrated snapshot per test process, shared by its files as the PostgreSQL database is (each file's companies
 * are its own), or, `own`, a copy of the file's own. Opening a copy costs about a second (docs/performance.md, "Where
 * a PGlite pass goes"), which every file paid before.
 */
export async function openTestDatabase(
  options: { log?: KyselyConfig['log']; own?: boolean | 'empty' } = {},
): Promise<DatabaseHandle> {
  const databaseUrl = inject('databaseUrl');
  if (databaseUrl && options.own) return openOwnPostgres(databaseUrl, { log: options.log, empty: options.own === 'empty' });
  if (databaseUrl) return openPostgres(databaseUrl, { max: 4, log: options.log });
  if (options.own === 'empty') return openPGlite({ log: options.log });
  if (options.own) return openPGlite({ loadDataDir: await snapshot(), log: options.log });
  sharedPGlite ??= openPGlite({ loadDataDir: await snapshot() }).then((handle) => handle.pglite);
  const pglite = await sharedPGlite;
  // A file that stopped inside a transaction (a failure half way) leaves it open: the next file starts outside it.
  if (pglite.isInTransaction()) await pglite.query('rollback');
  const handle = pgliteHandle(pglite, { log: options.log, keepOpen: true });
  // What the Node server's checkpoint job does (lib/node/checkpoint.ts): the WAL of the files before is recycled
  // rather than kept in this process's memory, and the next files need no new WAL file written full of zeros.
  await checkpointIfWalGrown(handle.db);
  return handle;
}

/** This process's PGlite, which the test files share (never closed: it ends with the process). */
let sharedPGlite: Promise<PGlite> | undefined;

/**
 * The migrated snapshot as PGlite reads a data folder's tarball (it asks a Blob only for its `arrayBuffer()` and its
 * `type`, and copies the files out): the file read once per process, its bytes handed to every opening. A Blob made
 * of the bytes at each opening cost about 0.8 s more CPU in Node's Blob (the copy into the Blob and the chunked read
 * back out; docs/performance.md, "The snapshot read once per test process").
 */
class SnapshotBlob extends Blob {
  readonly #tarball: ArrayBuffer;
  constructor(tarball: ArrayBuffer) {
    super([]);
    this.#tarball = tarball;
  }
  override async arrayBuffer(): Promise<ArrayBuffer> {
    return this.#tarball;
  }
}
let snapshotBytes: Promise<ArrayBuffer> | undefined;
const snapshot = async () => {
  snapshotBytes ??= readFile(inject('pgliteSnapshot')).then((file) =>
    file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength),
  );
  return new SnapshotBlob(await snapshotBytes);
};

/**
 * A database of this test file alone on the PostgreSQL server (created here as a copy of the run's migrated template,
 * test/support/global-setup.ts, or else migrated by the platform; dropped on close), for tests of work that scans
 * every company, such as the webhook dispatcher and the scheduler: on the shared database they would also pick up the
 * deliveries of the files running beside them. `empty`: no migration at all, for a test of a migration (its file
 * migrates up to the one before).
 */
async function openOwnPostgres(
  databaseUrl: string,
  { log, empty }: { log?: KyselyConfig['log']; empty: boolean },
): Promise<DatabaseHandle> {
  const name = `pa_test_${randomToken(10).toLowerCase()}`;
  const server = openPostgres(databaseUrl, { max: 1 });
  const template = empty ? '' : inject('ownDatabaseTemplate');
  await sql`create database ${sql.id(name)} ${template ? sql`template ${sql.id(template)}` : sql``}`.execute(server.db);
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  const handle = openPostgres(url.toString(), { max: 4, log });
  return {
    ...handle,
    close: async () => {
      await handle.close();
      await sql`drop database if exists ${sql.id(name)} with (force)`.execute(server.db);
      await server.close();
    },
  };
}

export type RequestOptions = {
  method?: string;
  host?: string;
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** The client address the request comes from (what the socket or CF-Connecting-IP gives in production). */
  clientAddress?: string;
};

export type TestApi = Awaited<ReturnType<typeof createTestApi>>;

/**
 * The test API's clock (Services.now): real time until a test sets an instant, so a test reaches an expiry by
 * setting the time, never by waiting for it. `set(null)` goes back to real time.
 */
export type TestClock = { now: () => Date; set: (at: Date | null) => void };

function testClock(): TestClock {
  let fixed: Date | null = null;
  return {
    now: () => (fixed ? new Date(fixed) : new Date()),
    set: (at) => {
      fixed = at;
    },
  };
}

/**
 * The real app on a real database, called in process (no socket). The only test-specific part
 * is where the client address comes from; authentication, validation and SQL are production code.
 */
export async function createTestApi(
  options: {
    env?: Record<string, string>;
    limiter?: RateLimiter;
    handle?: DatabaseHandle;
    ownDatabase?: boolean;
    /**
     * The outside world of outbound requests (lib/outbound/guard.ts): its DNS (`outsideDns` unless given) and the fetch
     * of unpinned requests.
     */
    outbound?: { resolveHost?: HostResolver; fetch?: typeof fetch };
  } = {},
) {
  const handle = options.handle ?? (await openTestDatabase({ own: options.ownDatabase }));
  // Lead details are encrypted with a key of this test API (the Node server keeps its own in DATA_DIR).
  const details = newDetailsKey();
  const clock = testClock();
  const platform: NodePlatform = await createNodePlatform(
    // Webhook secrets and lead details keys of this test API alone (the Node server keeps its own in DATA_DIR).
    {
      WEBHOOK_SECRET_KEY: newSecretKey(),
      DETAILS_KEYS: JSON.stringify({ [details.kid]: details.key }),
      DETAILS_KEY_ID: details.kid,
      ...options.env,
    },
    {
      handle,
      limiter: options.limiter ?? new MemoryRateLimiter(),
      clientAddress: (c: Context<AppEnv>) => c.req.header('x-test-client-address') ?? '192.0.2.1',
      now: clock.now,
      resolveHost: outsideDns,
      ...options.outbound,
    },
  );
  const app = buildApp(platform.provide, { admin: true, maxBodyBytes: platform.config.MAX_BODY_BYTES });
  const adminToken = `adm_${randomToken(40)}`;
  await handle.db
    .insertInto('admin_tokens')
    .values({ token_hash: await sha256(adminToken) })
    .execute();

  /**
   * A request to the app as written (any path, host, headers and body bytes), answered as status, headers, JSON and
   * text. HTTP tests call operations through the typed clients (test/support/client.ts); this is for what those will
   * not send, each call marked `// raw: why` where it is made (a malformed body, a header the client sets itself, a
   * route outside the OpenAPI documents, a loop over every route).
   */
  async function request(path: string, o: RequestOptions = {}) {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key) headers.Authorization = `Bearer ${o.key}`;
    if (o.clientAddress) headers['x-test-client-address'] = o.clientAddress;
    let body: string | undefined;
    if (o.body !== undefined) {
      body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const url = `http://${o.host ?? 'unknown.test'}${path}`;
    // raw: the raw request itself (the typed clients go through `app.fetch` in test/support/client.ts)
    const res = await app.request(url, { method: o.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
    const text = await res.text();
    // The webhook hand-off runs after the answer, in the background: tests look at its effects once it is done.
    await afterResponsesSettled();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, json, text };
  }

  /** A raw request to the admin API with the operator's token (the typed one: `adminClient` in test/support/client.ts). */
  const admin = (path: string, o: RequestOptions = {}) => request(`/admin/v1${path}`, { key: adminToken, ...o });

  return {
    app,
    db: handle.db,
    handle,
    platform,
    clock,
    adminToken,
    request,
    admin,
    close: () => handle.close(),
  };
}

export const demo = demoCatalogue;

/**
 * What the workerd tests share: a fresh database on the local PostgreSQL (migrated), the WebSocket-to-TCP proxy
 * and the stand-in of Neon's SQL over HTTP the Neon driver reaches it through, and the BUILT Worker bundles started in
 * Miniflare as wrangler deploys them.
 */
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Log, LogLevel, Miniflare } from 'miniflare';
import createClient, { type Client } from 'openapi-fetch';
import pg from 'pg';
import { compatibilityDate, compatibilityFlags } from '../../bin/wrangler-config';
import type { paths as AdminPaths } from '../../clients/admin/schema';
import { createPropertyApiClient, type paths } from '../../clients/typescript/src/index';
import type { GroupName } from '../../functions/app';
import type { DatabaseHandle } from '../../lib/db/index';
import { migrateToLatest } from '../../lib/db/migrate';
import { readSqlMigrations } from '../../lib/db/migrations-fs';
import { openPostgres } from '../../lib/db/postgres';
import { startWsTcpProxy, type WsTcpProxy } from '../support/ws-tcp-proxy';
import { type NeonHttp, startNeonHttp } from '../support/neon-http';
import { createCompany } from '../../functions/admin/companies';
import { importCatalogue } from '../../functions/catalogue/content';
import demoCatalogue from '../../functions/catalogue/demo-catalogue.json' with { type: 'json' };
import type { Trx } from '../../lib/db/index';
import { CatalogueImportInput } from '../../schema/catalogue/admin';
import { CreateCompanyInput } from '../../schema/platform/admin';

// The local server (as .ci/run names it); the WebSocket proxy only relays to loopback hosts.
export const SERVER = `postgresql://${process.env.PGUSER ?? 'postgres'}@${process.env.PGHOST ?? '127.0.0.1'}:5432`;
const root = new URL('../../', import.meta.url);

export const bundleOf = (name: 'default' | GroupName) =>
  fileURLToPath(new URL(name === 'default' ? 'dist/worker/worker.js' : `dist/worker-${name}/worker.js`, root));

export async function onServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: `${SERVER}/postgres` });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A Worker as Miniflare runs it: one bundle, its bindings, the database through the proxy. */
export type WorkerSpec = { name: string; bundle: string; bindings?: Record<string, string> };

export type Workerd = {
  handle: DatabaseHandle;
  mf: Miniflare;
  /** The stand-ins the Workers reach the database through: the WebSocket relay and Neon's SQL over HTTP. */
  proxy: WsTcpProxy;
  http: NeonHttp;
  close(): Promise<void>;
};

/**
 * Creates `databaseName` (a copy of `template`, the run's migrated database: test/workerd/global-setup.ts; or, without
 * one, a new database it migrates), lets `seed` fill it, then starts the Workers. The Workers' connections carry
 * `application_name` so that a test can tell them from its own. Everything is undone by `close`, and by a failure half
 * way.
 */
export async function startWorkerd(options: {
  databaseName: string;
  /** A migrated database to copy (the tests' `inject('workerdTemplate')`); without it the new one is migrated here. */
  template?: string;
  workers: WorkerSpec[];
  applicationName: string;
  seed: (handle: DatabaseHandle) => Promise<void>;
  /** workerd's V8 inspector on this port (the edge bench's CPU profile, bench/edge.ts); none by default. */
  inspectorPort?: number;
}): Promise<Workerd> {
  const { databaseName, template, workers, applicationName, seed, inspectorPort } = options;
  for (const worker of workers) {
    await stat(worker.bundle).catch(() => {
      throw new Error(`The bundle ${worker.bundle} is missing: run \`npm run test:workerd\` (it builds first).`);
    });
  }

  await onServer((client) => client.query(`create database ${databaseName}${template ? ` template ${template}` : ''}`));
  const databaseUrl = `${SERVER}/${databaseName}`;
  const handle = openPostgres(databaseUrl, { max: 2 });
  let proxy: WsTcpProxy | undefined;
  let http: NeonHttp | undefined;
  let mf: Miniflare | undefined;
  const close = async () => {
    await mf?.dispose();
    await proxy?.close();
    await http?.close();
    await handle.close();
    await onServer((client) => client.query(`drop database if exists ${databaseName} with (force)`));
  };
  try {
    if (!template) await migrateToLatest(handle, await readSqlMigrations());
    await seed(handle);
    proxy = await startWsTcpProxy();
    http = await startNeonHttp();
    const bindings = {
      DATABASE_URL: `${databaseUrl}?application_name=${applicationName}`,
      NEON_WS_PROXY: `127.0.0.1:${proxy.port}`,
      NEON_HTTP_PROXY: `127.0.0.1:${http.port}`,
    };
    mf = new Miniflare({
      cf: false,
      log: new Log(LogLevel.WARN),
      ...(inspectorPort === undefined ? {} : { inspectorPort }),
      workers: workers.map((worker) => ({
        name: worker.name,
        // The bundle is one module, listed as wrangler deploys it. (Auto-discovery would refuse @upstash/qstash's
        // computed import() of its Node-only dev server, code that never runs: the client is built with devMode off.)
        modules: [{ type: 'ESModule' as const, path: worker.bundle }],
        compatibilityDate,
        compatibilityFlags,
        bindings: { ...bindings, ...worker.bindings },
      })),
    });
    await mf.ready;
    return { handle, mf, proxy, http, close };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

/**
 * A typed client's `fetch` that hands each request to one Worker in Miniflare (the URL keeps the company's Host), as
 * the in-process harness hands it to `app.fetch`.
 */
export function workerFetch(mf: () => Miniflare | undefined, worker: string) {
  return async (request: Request): Promise<Response> => {
    const running = mf();
    if (!running) throw new Error('Miniflare is not running');
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
    const answer = await (await running.getWorker(worker)).fetch(request.url, {
      method: request.method,
      headers: [...request.headers],
      body,
    });
    const bytes = await answer.arrayBuffer();
    return new Response(bytes.byteLength === 0 ? null : bytes, { status: answer.status, headers: [...answer.headers] });
  };
}

/** The project's typed public client (clients/typescript) on one Worker in Miniflare. */
export function workerClient(
  mf: () => Miniflare | undefined,
  worker: string,
  options: { host: string; serverKey?: string; publishableKey?: string; headers?: Record<string, string> },
): Client<paths> {
  const { host, ...rest } = options;
  return createPropertyApiClient({ baseUrl: `http://${host}`, ...rest, fetch: workerFetch(mf, worker) });
}

/** The admin API's typed client on one Worker in Miniflare, with the operator's token. */
export function workerAdminClient(mf: () => Miniflare | undefined, worker: string, host: string, token: string) {
  return createClient<AdminPaths>({
    baseUrl: `http://${host}`,
    headers: { Authorization: `Bearer ${token}` },
    fetch: workerFetch(mf, worker),
  });
}

/** A company on `host` with the demo catalogue and bookings on (AED, Dubai's time), created in `trx`. */
export async function demoCompany(trx: Trx, name: string, host: string) {
  const company = await createCompany(
    trx,
    CreateCompanyInput.parse({
      name,
      hosts: [host],
      environment: 'production',
      currency: 'AED',
      time_zone: 'Asia/Dubai',
      settings: { bookings_enabled: true },
    }),
  );
  await importCatalogue(trx, company, CatalogueImportInput.parse(demoCatalogue), { render: null, now: new Date() });
  return company;
}

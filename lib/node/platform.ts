import { systemClock } from '../clock';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Context } from 'hono';
import { newAdminToken, registerAdminToken } from '../admin-tokens';
import { readsOnly } from '../request-lifecycle';
import type { ServicesProvider } from '../env';
import { type Config, loadConfig } from '../config';
import { newDetailsKey } from '../crypto-jwe';
import type { DatabaseHandle } from '../db/index';
import { migrateToLatest } from '../db/migrate';
import { readSqlMigrations } from '../db/migrations-fs';
import type { AppEnv, Services } from '../env';
import type { RateLimiter } from '../ratelimit/index';
import { limiterFor } from '../ratelimit/select';
import { createWebhookRuntime } from '../webhooks/runtime';
import type { WebhookRuntime } from '../webhooks/types';
import { newSecretKey } from '../webhooks/secrets';
import { docsScript } from './docs-script';
import { answerKept } from './kept-bodies';
import { resolveHost } from './dns';
import { pinnedFetch } from './pinned-fetch';
import type { HostResolver } from '../outbound/guard';
import { dataDirOf } from './local-server';
import { openDatabase } from './database';
import { listenForCompanyChanges } from './company-listener';
import { nodeCompressor } from './compress';
import { nodeFeedReader } from './feed-reader';
import type { CompanyCache } from '../company-cache';
import { mayChangeCompanies } from '../tenancy';

export type NodePlatform = {
  handle: DatabaseHandle;
  config: Config;
  limiter: RateLimiter;
  webhooks: WebhookRuntime;
  provide: ServicesProvider;
  /** Services for work outside a request: the dispatcher and the scheduler. */
  services: () => Services;
  /** Called after every write request has committed (the in-process dispatcher listens). */
  onHandOff: (listener: () => void) => void;
  /** Host → company rows in memory for reads, dropped on the database's notifications (closed with the handle). */
  companyCache: CompanyCache;
};

/**
 * The socket's address: on Node there is no trusted proxy header unless one is put in front. Read as
 * @hono/node-server/conninfo reads it, without the object it builds around it.
 */
export function socketAddress(c: Context<AppEnv>): string {
  try {
    const bindings = (c.env.server ?? c.env) as { incoming: IncomingMessage };
    return bindings.incoming.socket.remoteAddress ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export { openDatabase };

export async function createNodePlatform(
  env: NodeJS.ProcessEnv,
  options: {
    /** The database, or its opening under way (`npm start` opens it while the routes' modules load). */
    handle?: DatabaseHandle | Promise<DatabaseHandle>;
    clientAddress?: (c: Context<AppEnv>) => string;
    limiter?: RateLimiter;
    /** What requests to IP literals and development workspaces go through (the global fetch by default). */
    fetch?: typeof fetch;
    /** The DNS of outbound requests (node:dns by default; tests answer as a DNS change would). */
    resolveHost?: HostResolver;
    /** The clock of requests and scheduled work (tests pass one they can set); real time by default. */
    now?: () => Date;
  } = {},
): Promise<NodePlatform> {
  // The migrations are read while the database opens.
  const [handle, migrations] = await Promise.all([options.handle ?? openDatabase(env), readSqlMigrations()]);
  await migrateToLatest(handle, migrations);
  const config = loadConfig(env);
  const limiter = options.limiter ?? limiterFor(config);
  const clientAddress = options.clientAddress ?? socketAddress;
  const now = options.now ?? systemClock;
  const listeners = new Set<() => void>();
  const webhooks = createWebhookRuntime(config, {
    resolveHost: options.resolveHost ?? resolveHost,
    // Names resolved once by lib/outbound/guard.ts are connected to at the addresses it checked.
    fetch: pinnedFetch(options.fetch),
    now,
    onHandOff: () => {
      for (const listener of listeners) listener();
    },
  });
  const companies = await listenForCompanyChanges(handle);
  const closeHandle = handle.close.bind(handle);
  handle.close = async () => {
    await companies.close();
    await closeHandle();
  };
  const services = (address = 'scheduler'): Services => ({
    db: handle.db,
    config,
    limiter,
    clientAddress: address,
    webhooks,
    now,
    companyCache: companies.cache,
    docsScript,
    compress: nodeCompressor,
    answerKept,
    feedReader: nodeFeedReader,
  });
  // After a write request, reads wait for the notifications its commit sent (read your own writes).
  const afterWrite = async (c: Context<AppEnv>) => {
    if (mayChangeCompanies(c)) companies.cache.afterWrite();
  };
  const provide: ServicesProvider = (c) => ({
    services: services(clientAddress(c)),
    done: readsOnly(c.req.method) ? undefined : () => afterWrite(c),
  });
  return {
    handle,
    config,
    limiter,
    webhooks,
    provide,
    services,
    onHandOff: (listener) => listeners.add(listener),
    companyCache: companies.cache,
  };
}

/**
 * The key that encrypts webhook signing secrets: WEBHOOK_SECRET_KEY when set, otherwise one generated on first
 * start and kept in DATA_DIR/webhook-secret-key (mode 600). Keep it with the database: without it the stored
 * secrets cannot be read (every subscription's secret would have to be rotated).
 */
export async function ensureWebhookSecretKey(env: NodeJS.ProcessEnv): Promise<{ key: string; source: string }> {
  if (env.WEBHOOK_SECRET_KEY) return { key: env.WEBHOOK_SECRET_KEY, source: 'the WEBHOOK_SECRET_KEY environment variable' };
  const dataDir = dataDirOf(env);
  const file = join(dataDir, 'webhook-secret-key');
  let key = await readFile(file, 'utf8').then(
    (k) => k.trim(),
    () => undefined,
  );
  if (!key) {
    key = newSecretKey();
    await mkdir(dataDir, { recursive: true });
    await writeFile(file, `${key}\n`, { mode: 0o600 });
  }
  return { key, source: file };
}

/** The operator's admin token and where it is kept: see {@link ensureAdminToken}. */
export type AdminToken = { token: string; source: string };

/**
 * The operator's admin token: ADMIN_TOKEN when set, otherwise one generated on first start and kept in
 * DATA_DIR/admin-token (mode 600). Reads no database: `npm start` reads it while the database opens.
 */
export async function adminTokenOfDataDir(env: NodeJS.ProcessEnv): Promise<AdminToken> {
  if (env.ADMIN_TOKEN) return { token: env.ADMIN_TOKEN, source: 'the ADMIN_TOKEN environment variable' };
  const dataDir = dataDirOf(env);
  const file = join(dataDir, 'admin-token');
  let token = await readFile(file, 'utf8').then(
    (t) => t.trim(),
    () => undefined,
  );
  if (!token) {
    token = newAdminToken();
    await mkdir(dataDir, { recursive: true });
    await writeFile(file, `${token}\n`, { mode: 0o600 });
  }
  return { token, source: file };
}

/**
 * Registers the operator's admin token ({@link adminTokenOfDataDir}, or the one given). Only its hash goes into the
 * database, and only when it is not there yet: a start that finds it registered only reads.
 */
export async function ensureAdminToken(
  handle: DatabaseHandle,
  env: NodeJS.ProcessEnv,
  given?: AdminToken,
): Promise<{ source: string }> {
  const { token, source } = given ?? (await adminTokenOfDataDir(env));
  const known = await handle.db
    .selectFrom('admin_tokens')
    .select('id')
    // Node's hash at once, not WebCrypto's in a task: the start goes on as database work only.
    .where('token_hash', '=', createHash('sha256').update(token).digest())
    .executeTakeFirst();
  if (!known) await registerAdminToken(handle.db, token);
  return { source };
}

/**
 * The keys lead details are encrypted with: DETAILS_KEYS / DETAILS_KEY_ID when set, otherwise a key generated
 * on first start and kept in DATA_DIR/details-keys.json (mode 600), put into `env` for loadConfig. Losing the
 * file loses the stored details, so back it up with the data (or set the variables and keep them elsewhere).
 */
export async function ensureDetailsKeys(env: NodeJS.ProcessEnv): Promise<{ source: string }> {
  if (env.DETAILS_KEYS) return { source: 'the DETAILS_KEYS environment variable' };
  const dataDir = dataDirOf(env);
  const file = join(dataDir, 'details-keys.json');
  let saved = await readFile(file, 'utf8').then(
    (text) => JSON.parse(text) as { DETAILS_KEY_ID: string; DETAILS_KEYS: Record<string, string> },
    () => undefined,
  );
  if (!saved) {
    const { kid, key } = newDetailsKey();
    saved = { DETAILS_KEY_ID: kid, DETAILS_KEYS: { [kid]: key } };
    await mkdir(dataDir, { recursive: true });
    await writeFile(file, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  }
  env.DETAILS_KEYS = JSON.stringify(saved.DETAILS_KEYS);
  env.DETAILS_KEY_ID = saved.DETAILS_KEY_ID;
  return { source: file };
}

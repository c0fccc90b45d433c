import { systemClock } from './clock';
import type { ExecutionContext } from 'hono';
import type { ServicesProvider } from './env';
import { composeApp, type RouteGroup } from './compose';
import type { Services } from './env';
import { type Config, loadConfig } from './config';
import { openNeon, useNeonProxy } from './db/neon';
import type { RateLimiter } from './ratelimit/index';
import { limiterFor } from './ratelimit/select';
import { CompanyCache } from './company-cache';
import { mayChangeCompanies } from './tenancy';
import { runJobs, type ScheduledJob } from './scheduler';
import type { WebhookRuntime } from './webhooks/types';

/**
 * The Worker's bindings: vars from wrangler.jsonc, secrets from `wrangler secret put`. The config names of
 * lib/config.ts (rate limits, Upstash, cache ages, …) are read from the same object.
 */
export type WorkerEnv = {
  /** Secret: the Neon connection string. */
  DATABASE_URL?: string;
  /** Var: "on" mounts the admin API under /admin/v1 (default Worker only). */
  ADMIN_API?: string;
  /** Local testing only: `HOST:PORT` of a WebSocket-to-TCP proxy in front of a plain PostgreSQL. */
  NEON_WS_PROXY?: string;
  /** Local testing only: `HOST:PORT` of a stand-in of Neon's SQL over HTTP beside it (test/support/neon-http.ts). */
  NEON_HTTP_PROXY?: string;
  [name: string]: unknown;
};

/** What an entry needs to build its app; an app is built once per isolate for each distinct value. */
export type WorkerAppSettings = { admin: boolean; maxBodyBytes: number | undefined };

type FetchApp = { fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Response | Promise<Response> };

// Parsed once per isolate for each env object (workerd passes the same bindings object to every request).
const configs = new WeakMap<object, Config>();
function configFor(env: WorkerEnv): Config {
  let config = configs.get(env);
  if (!config) {
    config = loadConfig(env);
    configs.set(env, config);
  }
  return config;
}

// One limiter per isolate: the memory limiter keeps its windows, the Upstash one its HTTP client (fetch only).
let limiter: RateLimiter | undefined;

/**
 * Host → company rows per isolate. Nothing can LISTEN from a Worker, so a row is served for a short TTL
 * (COMPANY_CACHE_TTL_SECONDS, default 5; 0 turns it off): a change made elsewhere (another isolate, the admin
 * CLI, a host removed) is seen within that time; a write of this isolate drops every row at once.
 */
const defaultCompanyTtlSeconds = 5;
let companyCache: { ttlSeconds: number; cache: CompanyCache | undefined } | undefined;
function companyCacheFor(env: WorkerEnv): CompanyCache | undefined {
  const raw = Number(env.COMPANY_CACHE_TTL_SECONDS ?? defaultCompanyTtlSeconds);
  const ttlSeconds = Number.isFinite(raw) && raw > 0 ? raw : 0;
  if (companyCache?.ttlSeconds !== ttlSeconds) {
    const cache = ttlSeconds > 0 ? new CompanyCache({ mode: 'ttl', ttlMs: ttlSeconds * 1000 }) : undefined;
    companyCache = { ttlSeconds, cache };
  }
  return companyCache.cache;
}

/**
 * How a Worker builds its webhook runtime from its configuration: lib/webhooks/runtime.ts (QStash or the local
 * transport) where the Worker writes, lib/webhooks/outbox-only.ts where it never does (no transport bundled).
 */
export type WebhookRuntimeFactory = (config: Config) => WebhookRuntime;

/** A Worker's services: a services provider for its app, and `open` for its scheduled work. */
export type WorkerServices = {
  provide: ServicesProvider;
  /** A Neon pool per request (Workers forbid reusing I/O objects across requests), closed by `done`. */
  open(env: WorkerEnv, clientAddress: string, reads?: 'http'): { services: Services; done: () => Promise<void> };
};

export function workerServices(webhooksFor: WebhookRuntimeFactory): WorkerServices {
  // One webhook runtime per configuration: QStash client or the local transport, and the secrets' key.
  const runtimes = new WeakMap<Config, WebhookRuntime>();
  const open = (env: WorkerEnv, clientAddress: string, reads?: 'http') => {
    if (!env.DATABASE_URL) throw new Error('DATABASE_URL is not set: add it with `wrangler secret put DATABASE_URL`.');
    if (env.NEON_WS_PROXY) useNeonProxy(env.NEON_WS_PROXY, env.NEON_HTTP_PROXY);
    const config = configFor(env);
    limiter ??= limiterFor(config);
    let webhooks = runtimes.get(config);
    if (!webhooks) {
      // No DNS on Workers: production URL rules check literal addresses (Workers cannot reach private networks).
      webhooks = webhooksFor(config);
      runtimes.set(config, webhooks);
    }
    const handle = openNeon(env.DATABASE_URL, { readsOverHttp: reads === 'http' });
    return {
      services: {
        db: handle.db,
        config,
        limiter,
        clientAddress,
        webhooks,
        now: systemClock,
        companyCache: companyCacheFor(env),
      },
      done: () => handle.close(),
    };
  };
  const provide: ServicesProvider = async (c) => {
    const reading = ['GET', 'HEAD', 'OPTIONS'].includes(c.req.method);
    // A read's statements over HTTP (lib/db/neon.ts `isRead`: a visitor's, and a key's with the audit row it writes in
    // its own statement); a write's all go through its WebSocket, which it opens anyway, as does any statement of a
    // read that changes a stored row (a key's `last_used_at`, once a minute) or runs in a transaction.
    const opened = open(c.env as WorkerEnv, c.req.header('CF-Connecting-IP') ?? 'unknown', reading ? 'http' : undefined);
    if (reading) return opened;
    // A write of this isolate: its own next reads see it.
    const done = () => {
      if (mayChangeCompanies(c)) opened.services.companyCache?.afterWrite();
      return opened.done();
    };
    return { services: opened.services, done };
  };
  return { open, provide };
}

/** Cron Triggers (wrangler.jsonc `triggers`): the Worker's scheduled jobs, on a pool of their own. */
export function scheduledEntry(jobs: readonly ScheduledJob[], services: WorkerServices) {
  return {
    scheduled(_controller: unknown, env: WorkerEnv, ctx: ExecutionContext): void {
      const { services: opened, done } = services.open(env, 'scheduler');
      ctx.waitUntil(runJobs(opened, jobs).finally(done));
    },
  };
}

/**
 * A Worker's `{ fetch }`. Bindings are only known at request time, so the app is built lazily on the first
 * request and kept for the isolate's life (one per distinct settings value).
 */
export function workerEntry(build: (settings: WorkerAppSettings) => FetchApp) {
  const apps = new Map<string, FetchApp>();
  return {
    fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Response | Promise<Response> {
      let maxBodyBytes: number | undefined;
      try {
        maxBodyBytes = configFor(env).MAX_BODY_BYTES;
      } catch {
        // Invalid configuration: the app still answers, and its services provider reports the error as a 500 problem.
      }
      const settings: WorkerAppSettings = { admin: env.ADMIN_API === 'on', maxBodyBytes };
      const key = `${settings.admin}:${settings.maxBodyBytes}`;
      let app = apps.get(key);
      if (!app) {
        app = build(settings);
        apps.set(key, app);
      }
      return app.fetch(request, env, ctx);
    },
  };
}

/**
 * A route group deployed as its own Worker (functions/<group>/worker.ts): the group's routes and OpenAPI document,
 * never the admin API (whatever ADMIN_API says) nor the platform's callbacks, and its own scheduled jobs on Cron
 * Triggers when it has any. The platform's jobs run on the default Worker, which handles the deliveries.
 */
export function groupWorker(group: RouteGroup, webhooksFor: WebhookRuntimeFactory) {
  const services = workerServices(webhooksFor);
  const fetchEntry = workerEntry(({ maxBodyBytes }) => composeApp(services.provide, { groups: [group], maxBodyBytes }));
  return group.jobs?.length ? { ...fetchEntry, ...scheduledEntry(group.jobs, services) } : fetchEntry;
}

import type { Context } from 'hono';
import type { Access } from '../schema/common/scopes';
import type { Config } from './config';
import type { Db } from './db/index';
import type { RateLimiter } from './ratelimit/index';
import type { WebhookRuntime } from './webhooks/types';
import type { CompanyCache } from './company-cache';
import type { Compressor } from './encodings';
import type { FeedReader } from './ical-read';
import type { Company, ApiKeyRow } from '../schema/platform/db';

/** A key with the hashes of its secrets that were unexpired when it was read (lib/keys.ts). */
export type KeyWithSecrets = { key: ApiKeyRow; secrets: Array<{ hash: Uint8Array; expiresAt: Date | null }> };
/**
 * A key read with its company in one statement in this request (lib/keys.ts companyAndKey): verifyKey asks no more.
 * `generation`: the company cache's when the read began (-1 without a cache), so the key is kept only if current.
 */
export type KeyRead = { prefix: string; key: KeyWithSecrets | undefined; generation: number };

/** Who is calling: resolved once per request by the access middleware. */
export type Caller =
  | { kind: 'anonymous' }
  | { kind: 'server'; key: ApiKeyRow }
  /** A publishable key, sent from `origin`: one of the key's origins. */
  | { kind: 'publishable'; key: ApiKeyRow; origin: string }
  | { kind: 'admin' }
  /** Scheduled work, or a QStash callback signed by QStash. */
  | { kind: 'system' };

/** The services a request works with. Built by the runtime (Node server or Worker), never by handlers. */
export type Services = {
  db: Db;
  config: Config;
  limiter: RateLimiter;
  /** The client's network address, as the runtime knows it (socket on Node, CF-Connecting-IP on Workers). */
  clientAddress: string;
  /** Webhook delivery: transport (in-process or QStash), secret encryption, URL checks, timeout. */
  webhooks: WebhookRuntime;
  /** The current instant: real time, except in tests that set the clock (time is an input, never a sleep). */
  now: () => Date;
  /** Host → company rows kept in memory for reads (lib/company-cache.ts); absent: every request asks the database. */
  companyCache?: CompanyCache;
  /**
   * The reference page's script (@scalar/api-reference's standalone bundle) where the app serves it itself: Node
   * reads it from node_modules (lib/node/docs-script.ts); absent on Workers, whose static assets serve the file.
   */
  docsScript?: () => Promise<string>;
  /** Compresses bodies kept in memory (gzip, and brotli on Node); absent: they are kept and sent uncompressed. */
  compress?: Compressor;
  /**
   * Node: a large body made once per key object (the reference page's script, an app's OpenAPI document), sent compressed as the
   * request's Accept-Encoding asks (lib/node/kept-bodies.ts); absent on Workers, which send such bodies as they are.
   */
  answerKept?: (
    c: Context,
    key: object,
    make: () => Promise<string> | string,
    headers: Record<string, string>,
  ) => Promise<Response>;
  /**
   * Reads an imported calendar feed within its bounds (lib/ical-read.ts). Node: in a worker thread with a heap and time
   * limit (lib/node/feed-reader.ts), off the thread that serves requests; absent (Workers): read in the request, whose
   * CPU limit bounds it.
   */
  feedReader?: FeedReader;
};

export type AppEnv = {
  Bindings: Record<string, unknown>;
  Variables: {
    requestId: string;
    services: Services;
    company: Company;
    caller: Caller;
    /** The matched route's access declaration, set by its access check. */
    access: Access;
    /** The presented key, when it was read in one statement with the company (lib/tenancy.ts). */
    keyRead: KeyRead;
    /**
     * A write of a versioned route (lib/preconditions.ts): the If-Match it was sent (`sent` undefined: none), for a
     * write made without a transaction to check (checkIfMatch); unset on every other route.
     */
    ifMatch: { sent: '*' | string[] | undefined } | undefined;
    /** Headers gathered for the answer (request id, rate limits, CORS): lib/security-headers.ts puts them on it. */
    answerHeaders: Record<string, string>;
    /** The API version the request is served at (lib/versions.ts); `versionAsked`: named by its `Api-Version` header. */
    apiVersion: string;
    versionAsked: boolean;
    /** A body still being written after the handler returned (lib/request-lifecycle.ts, keepServicesUntil). */
    streaming: Promise<unknown>;
  };
};

/** A request's services; `done` runs after the response (e.g. closing a per-request pool). */
export type Provided = { services: Services; done?: () => Promise<void> };
/** Builds a request's services: at once where nothing needs waiting for (Node), or in a promise (a Worker's pool). */
export type ServicesProvider = (c: Context<AppEnv>) => Provided | Promise<Provided>;

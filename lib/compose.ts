import type { OpenAPIHono } from '@hono/zod-openapi';
import { Scalar } from '@scalar/hono-api-reference';
import type { Context, Hono } from 'hono';
import { createApp, createRouter } from './app';
import type { ServicesProvider } from './env';
import type { AppEnv } from './env';
import { publicReadCors } from './public-cors';
import type { ScheduledJob } from './scheduler';
import { etagOf, ifNoneMatch } from './etag';
import { ApiError } from './errors';
import { docsPagePolicy, docsScriptPath } from './security-headers';
import { publishedDocument, registerSecuritySchemes } from './openapi';
import { registerEventWebhooks } from './webhooks/doc';

type Router = OpenAPIHono<AppEnv>;

/**
 * Settings of the pinned @scalar/api-reference bundle that the wrapper's older types (@scalar/types 0.2) do not list
 * (the page passes them through as given): Scalar's cloud features off. Its AI agent, MCP generation and developer
 * toolbar (shown on localhost) call Scalar's servers, which the page's CSP (`connect-src 'self'`) and a reader
 * offline never reach; no telemetry either.
 */
const withoutScalarCloud = {
  showDeveloperTools: 'never',
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
};

/**
 * A route group as its folder declares it (functions/<group>/index.ts): what the root app, the scheduler and the
 * group's own Worker need, and nothing of any other group. Its admin routes are not part of it: they live in
 * functions/<group>/admin.ts and only the admin API imports them (functions/app.ts), so a group's own Worker,
 * which never mounts the admin API, does not bundle them.
 */
export type RouteGroup = {
  /** Its folder under functions/ and its wrangler environment. */
  name: string;
  /** The public API's routers, mounted under /api/v1 in this order (the OpenAPI document lists paths so). */
  routes: readonly Router[];
  /**
   * Paths under /api/v1 any page may read (lib/public-cors.ts). Each is named, since a pattern such as `*`
   * would reach the routes of every group mounted beside this one.
   */
  publicReadPaths?: readonly string[];
  /** Browser forms under /api/v1: their CORS runs in the root app, ahead of the body limit. */
  formPaths?: readonly string[];
  /** Routes outside /api/v1 (e.g. the guest's stay page), mounted at the root after every group's API. */
  pages?: () => Hono<AppEnv>;
  /** Its scheduled jobs, composed at the top with the platform's. */
  jobs?: readonly ScheduledJob[];
};

/** Keeps a group's exact type (its name as a literal), checked against RouteGroup. */
export function defineGroup<const G extends RouteGroup>(group: G): G {
  return group;
}

/** The reference page's script is the same file for every app of the process: one kept body. */
const docsScriptKey = {};

const info = {
  title: 'Property Company Public API',
  version: '1.0.0',
  description:
    'The programmatic interface of a property company’s platform. Each problem’s `type` is a page explaining its code.',
};

export type ComposeOptions = {
  groups: readonly RouteGroup[];
  /** The admin API's routers in order, mounted under /admin/v1; none: no admin API at all. */
  admin?: readonly Router[];
  /** Platform callbacks (/internal/v1, e.g. QStash's deliveries); none: not mounted. */
  internal?: Router;
  maxBodyBytes?: number;
  /**
   * The problem types' pages (lib/problem-pages.ts, /problems/{code}): the Node server and the default Worker mount
   * them; a group's Worker leaves them (and their text) out, its host's /problems reaching the default Worker.
   */
  problemPages?: () => Hono<AppEnv>;
};

/**
 * The root app of some groups, with its OpenAPI documents (public: the groups' operations and the events a
 * subscriber receives; admin: only where the admin API is mounted), the docs page and the security schemes.
 */
export function composeApp(provide: ServicesProvider, options: ComposeOptions): OpenAPIHono<AppEnv> {
  const { groups } = options;
  // The groups' browser forms: the root app puts their CORS ahead of the body limit.
  const formPaths = groups.flatMap((group) => (group.formPaths ?? []).map((path) => `/api/v1${path}`));
  const app = createApp(provide, { maxBodyBytes: options.maxBodyBytes, formPaths });
  for (const group of groups) {
    for (const path of group.publicReadPaths ?? []) app.use(`/api/v1${path}`, publicReadCors());
    for (const router of group.routes) app.route('/api/v1', router);
  }
  for (const group of groups) if (group.pages) app.route('/', group.pages());
  if (options.admin) {
    const admin = createRouter();
    for (const router of options.admin) admin.route('/', router);
    app.route('/admin/v1', admin);
  }
  if (options.internal) app.route('/internal/v1', options.internal);
  // Each problem's `type` URL, answered on any host (lib/problem-pages.ts): where the caller mounts them.
  if (options.problemPages) app.route('/', options.problemPages());

  // The documents are made once; on Node they are kept with their gzip and brotli variants with the reference page's
  // script (4.35 MB) and sent as Accept-Encoding asks (Services.answerKept); a Worker sends them as they are.
  const documents = new Map<string, string>();
  /** This app's documents, each the key of its kept body (Services.answerKept). */
  const documentKeys = new Map<string, object>();
  let etag: string | undefined;
  // The events' webhooks and the security schemes are the documents' alone: registered when a document is first made,
  // not at every composition (a Worker's start, each time the Node server loads a group: about a hundred events'
  // schemas built each time).
  let registered = false;
  const documentFor = (prefix: string, title: string) => {
    let doc = documents.get(prefix);
    if (doc === undefined) {
      if (!registered) {
        registerEventWebhooks(app.openAPIRegistry);
        registerSecuritySchemes(app.openAPIRegistry);
        registered = true;
      }
      doc = JSON.stringify(publishedDocument(app, prefix, { ...info, title }));
      documents.set(prefix, doc);
    }
    return doc;
  };
  const jsonType = { 'Content-Type': 'application/json' };
  const sendDocument = (c: Context<AppEnv>, prefix: string, title: string) => {
    const kept = c.var.services.answerKept;
    if (!documentKeys.has(prefix)) documentKeys.set(prefix, {});
    if (kept) return kept(c, documentKeys.get(prefix) as object, () => documentFor(prefix, title), jsonType);
    return c.body(documentFor(prefix, title), 200, jsonType);
  };
  app.get('/api/v1/openapi.json', (c) => sendDocument(c, '/api/v1/', info.title));
  // The page loads its script from this host (never a CDN) and no fonts from elsewhere: it renders offline.
  const page = Scalar({
    url: '/api/v1/openapi.json',
    pageTitle: info.title,
    cdn: docsScriptPath,
    withDefaultFonts: false,
    ...withoutScalarCloud,
  });
  app.get('/api/v1/docs', docsPagePolicy(), page);
  app.get(docsScriptPath, async (c) => {
    const load = c.var.services.docsScript;
    // On Workers the static assets answer this path before the Worker runs; reaching here means none are deployed.
    if (!load) throw new ApiError('not_found', 'The reference page’s script is served as a static asset here.');
    etag ??= await etagOf(await load());
    const headers = { ETag: etag, 'Cache-Control': 'public, max-age=3600', 'Content-Type': 'text/javascript; charset=utf-8' };
    if (ifNoneMatch(c.req.header('If-None-Match'), etag)) return c.body(null, 304, headers);
    const kept = c.var.services.answerKept;
    return kept ? kept(c, docsScriptKey, load, headers) : c.body(await load(), 200, headers);
  });
  if (options.admin) {
    app.get('/admin/v1/openapi.json', (c) => sendDocument(c, '/admin/v1/', `${info.title} — admin`));
  }
  return app;
}

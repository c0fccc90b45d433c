import type { OpenAPIHono } from '@hono/zod-openapi';
import { Scalar } from '@scalar/hono-api-reference';
import type { Hono } from 'hono';
import { createApp, createRouter, type ServicesProvider } from './app';
import type { AppEnv } from './env';
import { publicReadCors } from './public-cors';
import type { ScheduledJob } from './scheduler';
import { etagOf, ifNoneMatch } from './etag';
import { KeptBody } from './encodings';
import { ApiError } from './errors';
import { docsPagePolicy, docsScriptPath } from './security-headers';
import { publishedDocument, registerSecuritySchemes } from './openapi';
import { registerEventWebhooks } from './webhooks/doc';
import { problemPages } from './problem-pages';

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

const info = {
  title: 'Property Company Public API',
  version: '1.0.0',
  description:
    'The programmatic interface of a property company’s platform: its catalogue, visitor forms, CRM, stays, leases, maintenance, pipelines, owner statements and portal feeds. Every error is `application/problem+json`; its `type` links to a page on this host (`/problems/{code}`) that explains the code.',
};

export type ComposeOptions = {
  groups: readonly RouteGroup[];
  /** The admin API's routers in order, mounted under /admin/v1; none: no admin API at all. */
  admin?: readonly Router[];
  /** Platform callbacks (/internal/v1, e.g. QStash's deliveries); none: not mounted. */
  internal?: Router;
  maxBodyBytes?: number;
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
  // Each problem's `type` URL, answered on any host of every Worker (lib/problem-pages.ts).
  app.route('/', problemPages());
  registerEventWebhooks(app.openAPIRegistry);
  registerSecuritySchemes(app.openAPIRegistry);

  // The documents and the reference page's script are made once and kept with their gzip and brotli variants where
  // the runtime compresses (Node: the script is 4.35 MB, the public document over 300 KB); sent as Accept-Encoding asks.
  const documents = new Map<string, KeptBody>();
  let etag: string | undefined;
  let docsScript: KeptBody | undefined;
  const documentFor = (prefix: string, title: string) => {
    let doc = documents.get(prefix);
    if (!doc) {
      doc = new KeptBody(() => JSON.stringify(publishedDocument(app, prefix, { ...info, title })));
      documents.set(prefix, doc);
    }
    return doc;
  };
  const jsonType = { 'Content-Type': 'application/json' };
  app.get('/api/v1/openapi.json', (c) => documentFor('/api/v1/', info.title).answer(c, c.var.services.compress, jsonType));
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
    docsScript ??= new KeptBody(load);
    etag ??= await etagOf(await load());
    const headers = { ETag: etag, 'Cache-Control': 'public, max-age=3600', 'Content-Type': 'text/javascript; charset=utf-8' };
    if (ifNoneMatch(c.req.header('If-None-Match'), etag)) return c.body(null, 304, headers);
    return docsScript.answer(c, c.var.services.compress, headers);
  });
  if (options.admin) {
    app.get('/admin/v1/openapi.json', (c) =>
      documentFor('/admin/v1/', `${info.title} — admin`).answer(c, c.var.services.compress, jsonType),
    );
  }
  return app;
}

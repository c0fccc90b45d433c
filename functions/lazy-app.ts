import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Hono } from 'hono';
import { composeApp, type RouteGroup } from '../lib/compose';
import type { AppEnv, ServicesProvider } from '../lib/env';
import { problemPages } from '../lib/problem-pages';
import { formPaths, routeTable } from './route-table';

type GroupName = keyof typeof routeTable;

/**
 * Each route group's module, imported when a request first needs it, in the order the root app composes the groups
 * (functions/app.ts `groups`; test/platform/route-table.test.ts checks both).
 */
const groupModules: { [name in GroupName]: () => Promise<RouteGroup> } = {
  catalogue: () => import('./catalogue/index').then((m) => m.catalogue),
  crm: () => import('./crm/index').then((m) => m.crm),
  forms: () => import('./forms/index').then((m) => m.forms),
  stay: () => import('./stay/index').then((m) => m.stay),
  leases: () => import('./leases/index').then((m) => m.leases),
  maintenance: () => import('./maintenance/index').then((m) => m.maintenance),
  pipelines: () => import('./pipelines/index').then((m) => m.pipelines),
  statements: () => import('./statements/index').then((m) => m.statements),
  portals: () => import('./portals/index').then((m) => m.portalsGroup),
  payments: () => import('./payments/index').then((m) => m.paymentsGroup),
  events: () => import('./events/index').then((m) => m.eventsGroup),
  webhooks: () => import('./webhooks/index').then((m) => m.webhooks),
};

export const lazyGroupNames = Object.keys(groupModules) as GroupName[];

/**
 * A Hono path (`/api/v1/listings/:slug`, `/x/*`) as a regular expression that matches at least every path the route
 * does: a parameter is any non-empty segment (any text where it carries its own pattern), a trailing slash is allowed.
 * Matching more than Hono would only loads a group sooner.
 */
export function pathPattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      if (segment.startsWith(':')) return segment.includes('{') ? '.+' : '[^/]+';
      return segment.replace(/[.+?^${}()|[\]\\*]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}/?$`);
}

const patterns = lazyGroupNames.map((name) => ({
  name,
  paths: [...new Set(routeTable[name].map(([, path]) => path))].map(pathPattern),
}));

/** The groups that declare a route on `path` (any method: a wrong method then answers as the whole app does). */
export function groupsServing(path: string): GroupName[] {
  return patterns.filter((group) => group.paths.some((pattern) => pattern.test(path))).map((group) => group.name);
}

type Part = GroupName | 'admin' | 'internal';
const everything: readonly Part[] = [...lazyGroupNames, 'admin', 'internal'];

/** What a request to `path` needs composed: the OpenAPI documents describe everything, hence need all of it. */
function partsFor(path: string): readonly Part[] {
  if (path === '/api/v1/openapi.json' || path === '/admin/v1/openapi.json') return everything;
  if (path === '/admin' || path.startsWith('/admin/')) return ['admin'];
  if (path === '/internal' || path.startsWith('/internal/')) return ['internal'];
  return groupsServing(path);
}

type Fetch = (request: Request, env?: Record<string, unknown>, context?: never) => Response | Promise<Response>;

/**
 * The Node server's root app, composed as requests need its parts (issue 39: a start does not load and build every
 * route group, the admin API and the documents first). It answers every request as functions/app.ts `buildApp`'s
 * whole app would: a request first imports the groups whose routes match its path (functions/route-table.ts), or the
 * admin API, and the root app is composed again of every part loaded so far, in the whole app's order, so that
 * routes, middleware and the problem for an unknown path are those of the whole app on that path. Parts are only
 * ever added: once every part is in, nothing is composed again.
 */
export function lazyApp(
  provide: ServicesProvider,
  options: {
    maxBodyBytes?: number;
    /** Routes mounted under /admin/v1 after the admin API's (the Node server's backup), and work done before it. */
    admin?: { extra?: () => Hono<AppEnv>; prepare?: () => Promise<void> };
  },
): { fetch: Fetch; loaded: () => Part[] } {
  const loaded = new Map<Part, RouteGroup | readonly OpenAPIHono<AppEnv>[] | OpenAPIHono<AppEnv>>();
  const compose = () => {
    // A group not loaded yet still brings its forms' paths: their CORS is the root app's, ahead of the body limit.
    const groups = lazyGroupNames.map(
      (name) => (loaded.get(name) as RouteGroup | undefined) ?? { name, routes: [], formPaths: formPaths[name] },
    );
    const app = composeApp(provide, {
      groups,
      admin: loaded.get('admin') as readonly OpenAPIHono<AppEnv>[] | undefined,
      internal: loaded.get('internal') as OpenAPIHono<AppEnv> | undefined,
      maxBodyBytes: options.maxBodyBytes,
      problemPages,
    });
    const extra = options.admin?.extra;
    if (loaded.has('admin') && extra) app.route('/admin/v1', extra());
    return app;
  };
  let app = compose();
  // One composition at a time: a request that needs a part another is loading waits for that one.
  let composing: Promise<unknown> = Promise.resolve();
  const load = (parts: readonly Part[]) => {
    // A failed import fails its requests only: the next request tries again.
    composing = composing
      .catch(() => {})
      .then(async () => {
        const missing = parts.filter((part) => !loaded.has(part));
        if (missing.length === 0) return;
        if (missing.includes('admin')) await options.admin?.prepare?.();
        const modules = await Promise.all(missing.map((part) => importPart(part)));
        for (const [i, part] of missing.entries()) loaded.set(part, modules[i] as RouteGroup);
        app = compose();
      });
    return composing;
  };
  const answer: Fetch = (request, env, context) => {
    // Everything in: the whole app answers, the path not even parsed (the hot paths: a kept page, a 304).
    if (loaded.size === everything.length) return app.fetch(request, env, context);
    // As Hono routes it: percent-encoded characters decoded (a path it cannot decode matches as written).
    let path = new URL(request.url).pathname;
    try {
      path = decodeURI(path);
    } catch {}
    const parts = partsFor(path);
    if (parts.every((part) => loaded.has(part))) return app.fetch(request, env, context);
    return load(parts).then(() => app.fetch(request, env, context));
  };
  return { fetch: answer, loaded: () => [...loaded.keys()] };
}

function importPart(part: Part) {
  if (part === 'admin') return import('./admin-api').then((m) => m.adminRouters);
  if (part === 'internal') return import('./internal/index').then((m) => m.internal);
  return groupModules[part]();
}

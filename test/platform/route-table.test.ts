import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routesOf } from '../../bin/route-table';
import { buildApp, routeGroups } from '../../functions/app';
import { groupsServing, lazyApp, lazyGroupNames } from '../../functions/lazy-app';
import { formPaths, routeTable } from '../../functions/route-table';
import { createTestApi } from '../support/harness';

/**
 * The Node server composes its root app of the route groups a request needs (functions/lazy-app.ts), knowing which
 * from functions/route-table.ts: that table is the groups' routes as they are, every route of the whole app reaches
 * the group that declares it, and a server that loaded only what a request needs answers it as the whole app does.
 */
const sample = (path: string) =>
  path
    .split('/')
    .map((segment) => (segment === '*' ? 'x' : segment.startsWith(':') ? 'x1' : segment))
    .join('/');

describe('the route table', () => {
  it('is what bin/route-table.ts writes from the groups as they are (run it after changing a route)', () => {
    expect(Object.keys(routeTable)).toEqual(routeGroups.map((group) => group.name));
    expect(lazyGroupNames).toEqual(routeGroups.map((group) => group.name));
    for (const group of routeGroups)
      expect([group.name, routeTable[group.name as keyof typeof routeTable]]).toEqual([group.name, routesOf(group)]);
    for (const group of routeGroups) expect(formPaths[group.name]).toEqual(group.formPaths);
  });

  it('maps every route of the whole app to the group that declares it, and no other route to any group', async () => {
    const api = await createTestApi();
    try {
      const declared = new Map<string, Set<string>>();
      for (const group of routeGroups) {
        for (const [method, path] of routesOf(group)) {
          const key = `${method} ${path}`;
          declared.set(key, (declared.get(key) ?? new Set()).add(group.name));
        }
      }
      let checked = 0;
      for (const route of api.app.routes) {
        const owners = declared.get(`${route.method} ${route.path}`);
        if (!owners) {
          // The root app's own routes: health, documents, reference page, problems, admin and internal APIs.
          expect(route.path, `${route.method} ${route.path}`).toMatch(
            /^(\/health|\/api\/v1\/(openapi\.json|docs)|\/api\/\*|\/admin|\/internal|\/problems|\/docs-assets|\/\*$|\/$)/,
          );
          continue;
        }
        for (const owner of owners) expect(groupsServing(sample(route.path)), route.path).toContain(owner);
        checked++;
      }
      expect(checked).toBeGreaterThan(100);
    } finally {
      await api.handle.close();
    }
  });
});

describe('the Node server composing only what a request needs', () => {
  let api: Awaited<ReturnType<typeof createTestApi>>;
  beforeAll(async () => {
    api = await createTestApi();
  });
  afterAll(() => api.handle.close());

  const answer = async (fetch: (request: Request) => Response | Promise<Response>, request: () => Request) => {
    const res = await fetch(request());
    const text = await res.text();
    const headers = Object.fromEntries(
      [...res.headers].filter(([name]) => !/^(x-request-id|request-id|date|etag|content-length)$/i.test(name)),
    );
    let code: unknown = text.length;
    try {
      code = JSON.parse(text).code ?? text.length;
    } catch {}
    return { status: res.status, headers, code };
  };

  it('answers every route, preflight and unknown path as the whole app does, loading only the groups it serves', async () => {
    const whole = buildApp(api.platform.provide, { admin: true, maxBodyBytes: api.platform.config.MAX_BODY_BYTES });
    const requests: [string, string, Record<string, string>][] = [];
    for (const rows of Object.values(routeTable)) {
      for (const [method, path] of rows) {
        const url = sample(path);
        requests.push([method === 'ALL' ? 'GET' : method, url, {}]);
        requests.push(['OPTIONS', url, { Origin: 'https://www.example.test', 'Access-Control-Request-Method': 'POST' }]);
      }
    }
    for (const url of [
      '/api/v1/%6Cistings',
      '/api/v1/listings/%E0%A4%A',
      '/nope',
      '/api/v1/nope',
      '/api/v1/listings/a/b/c',
      '/admin/v1/nope',
      '/internal/v1/nope',
      '/health',
      '/problems/not_found',
      '/api/v1/docs',
    ]) {
      requests.push(['GET', url, {}], ['DELETE', url, {}]);
    }
    for (const [method, url, headers] of requests) {
      const request = () => new Request(`http://unknown.test${url}`, { method, headers });
      const lazy = lazyApp(api.platform.provide, { maxBodyBytes: api.platform.config.MAX_BODY_BYTES });
      expect([method, url, await answer(lazy.fetch, request)]).toEqual([method, url, await answer(whole.fetch, request)]);
      const serving = groupsServing(url === '/api/v1/%6Cistings' ? '/api/v1/listings' : url);
      expect(lazy.loaded().every((part) => serving.includes(part as never) || part === 'admin' || part === 'internal')).toBe(
        true,
      );
    }
    const lazy = lazyApp(api.platform.provide, {});
    await lazy.fetch(new Request('http://unknown.test/api/v1/listings?page_size=1'));
    expect(lazy.loaded()).toEqual(['catalogue']);
    // A path as Hono routes it: percent-encoded characters decoded.
    await lazy.fetch(new Request('http://unknown.test/api/v1/%6Ceads', { method: 'POST' }));
    expect(lazy.loaded().sort()).toEqual(['catalogue', 'crm', 'forms']);
    await lazy.fetch(new Request('http://unknown.test/api/v1/listings/x1/quote'));
    expect(lazy.loaded().sort()).toEqual(['catalogue', 'crm', 'forms', 'stay']);
  });

  it('answers both documents as the whole app does, with every part loaded', async () => {
    const whole = buildApp(api.platform.provide, { admin: true, maxBodyBytes: api.platform.config.MAX_BODY_BYTES });
    for (const url of ['/api/v1/openapi.json', '/admin/v1/openapi.json']) {
      const lazy = lazyApp(api.platform.provide, { maxBodyBytes: api.platform.config.MAX_BODY_BYTES });
      const request = () => new Request(`http://unknown.test${url}`);
      const [a, b] = [await (await lazy.fetch(request())).text(), await (await whole.fetch(request())).text()];
      expect(a).toEqual(b);
      expect(lazy.loaded()).toHaveLength(lazyGroupNames.length + 2);
    }
  });
});

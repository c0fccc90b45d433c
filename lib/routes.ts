import type { RouteConfig, RouteHandler } from '@hono/zod-openapi';
import { defineRoute } from './access';
import type { AppEnv } from './env';
import type { Scope } from '../schema/common/scopes';

/** What a group's route declares: everything of a route but what its helper adds (access, tags, middleware). */
export type RouteDeclaration = Omit<RouteConfig, 'middleware' | 'security' | 'tags'>;

/**
 * The route helper of a group whose routes take a server key (publishable keys refused; no CORS grant): declared
 * once per group with its OpenAPI tag and the scopes its routes may ask, e.g.
 * `const leasesRoute = serverRoutes('Leases', ['read:leases', 'write:leases'])`, then
 * `leasesRoute('read:leases', { method: 'get', path: '/leases', … })`. A scope outside the group's does not compile.
 */
export function serverRoutes<const S extends Scope>(tag: string, _scopes: readonly S[]) {
  return function route<const R extends RouteDeclaration>(scope: S, declaration: R) {
    return defineRoute({ ...declaration, tags: [tag], access: { kind: 'server', scopes: [scope] } });
  };
}

/**
 * A route's handler, typed from its declaration: `const listContacts: Handler<typeof listRoute> = async (c) => …`, then
 * `.openapi(listRoute, listContacts)`. Handlers are named so stack traces and profiles name them.
 */
export type Handler<R extends RouteConfig> = RouteHandler<R, AppEnv>;

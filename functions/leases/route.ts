import type { RouteConfig } from '@hono/zod-openapi';
import { defineRoute } from '../../lib/access';
import type { Scope } from '../../schema/common/scopes';

/** Lease routes: a server key with the route's scope (publishable keys refused; no CORS grant). */
export function leasesRoute<const R extends Omit<RouteConfig, 'middleware' | 'security'>>(
  scope: Extract<Scope, 'read:leases' | 'write:leases'>,
  route: R,
) {
  return defineRoute({ ...route, tags: ['Leases'], access: { kind: 'server', scopes: [scope] } });
}

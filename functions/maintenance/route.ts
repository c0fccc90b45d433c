import type { RouteConfig } from '@hono/zod-openapi';
import { defineRoute } from '../../lib/access';
import type { Scope } from '../../schema/common/scopes';

/** Maintenance routes: a server key with the route's scope (publishable keys refused; no CORS grant). */
export function maintenanceRoute<const R extends Omit<RouteConfig, 'middleware' | 'security'>>(
  scope: Extract<Scope, 'read:maintenance' | 'write:maintenance'>,
  route: R,
) {
  return defineRoute({ ...route, tags: ['Maintenance'], access: { kind: 'server', scopes: [scope] } });
}

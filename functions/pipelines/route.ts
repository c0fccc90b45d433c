import type { RouteConfig } from '@hono/zod-openapi';
import { defineRoute } from '../../lib/access';
import type { Scope } from '../../schema/common/scopes';

/** Pipeline routes: a server key with the route's scope (publishable keys refused; no CORS grant). */
export function pipelinesRoute<const R extends Omit<RouteConfig, 'middleware' | 'security'>>(
  scope: Extract<Scope, 'read:pipelines' | 'write:pipelines'>,
  route: R,
) {
  return defineRoute({ ...route, tags: ['Pipelines'], access: { kind: 'server', scopes: [scope] } });
}

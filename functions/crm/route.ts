import type { RouteConfig } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { defineRoute } from '../../lib/access';
import { auditPersonalDataRead } from '../../lib/audit';
import type { AppEnv } from '../../lib/env';
import type { Scope } from '../../schema/common/scopes';

/** CRM routes: a server key with the route's scope (publishable keys refused; no CORS grant). */
export function crmRoute<const R extends Omit<RouteConfig, 'middleware' | 'security'>>(scope: Scope, route: R) {
  return defineRoute({ ...route, tags: ['CRM'], access: { kind: 'server', scopes: [scope] } });
}

/** Audits the personal data a handler is about to return (one row for the whole answer). */
export function auditRead(c: Context<AppEnv>, references: string[]): Promise<void> {
  return auditPersonalDataRead(c.var.services.db, {
    companyId: c.var.company.id,
    caller: c.var.caller,
    route: `${c.req.method} ${c.req.routePath}`,
    references,
  });
}

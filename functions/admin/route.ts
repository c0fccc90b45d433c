import { z } from '@hono/zod-openapi';
import type { RouteConfig } from '@hono/zod-openapi';
import { defineRoute } from '../../lib/access';

/** Every admin route: the operator's token, tagged Admin. */
export function adminRoute<const R extends Omit<RouteConfig, 'middleware' | 'security'>>(route: R) {
  return defineRoute({ ...route, tags: ['Admin'], access: { kind: 'admin' } });
}

export const companyParam = z.object({ company_id: z.string().uuid() });

export function json<T extends z.ZodType>(schema: T, description = 'OK') {
  return { description, content: { 'application/json': { schema } } };
}

export function jsonBody<T extends z.ZodType>(schema: T) {
  return { required: true, content: { 'application/json': { schema } } };
}

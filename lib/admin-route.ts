import { z } from '@hono/zod-openapi';
import type { RouteConfig } from '@hono/zod-openapi';
import { defineRoute } from './access';

export { json, jsonBody } from '../schema/common/api';

/** Every admin route: the operator's token, tagged Admin. */
export function adminRoute<const R extends Omit<RouteConfig, 'middleware' | 'security'>>(route: R) {
  return defineRoute({ ...route, tags: ['Admin'], access: { kind: 'admin' } });
}

export const companyParam = z.object({ company_id: z.string().uuid() });

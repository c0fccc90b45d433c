import { z } from '@hono/zod-openapi';
import type { RouteConfig } from '@hono/zod-openapi';
import type { Company } from '../schema/db';
import { defineRoute } from './access';
import type { Executor } from './db/index';
import { notFound } from './errors';

export { json, jsonBody } from '../schema/common/api';

/** Every admin route: the operator's token, tagged Admin. */
export function adminRoute<const R extends Omit<RouteConfig, 'middleware' | 'security'>>(route: R) {
  return defineRoute({ ...route, tags: ['Admin'], access: { kind: 'admin' } });
}

export const companyParam = z.object({ company_id: z.string().uuid() });

/** The company an admin route names (`{company_id}`), or 404: every group's admin routes start here. */
export async function findCompany(db: Executor, id: string): Promise<Company> {
  const company = await db.selectFrom('companies').selectAll().where('id', '=', id).executeTakeFirst();
  if (!company) throw notFound(`The company ${id}`);
  return company;
}

import type { Context } from 'hono';
import type { Company } from '../schema/platform/db';
import { isLocalHost } from './addresses';
import type { Executor } from './db/index';
import type { AppEnv } from './env';
import { ApiError } from './errors';

/** The host a request was sent to, lower-case and without port. */
export function requestHost(c: Context<AppEnv>): string {
  return new URL(c.req.url).hostname.toLowerCase();
}

export async function companyByHost(db: Executor, host: string): Promise<Company | undefined> {
  return db
    .selectFrom('company_hosts as h')
    .innerJoin('companies as c', 'c.id', 'h.company_id')
    .selectAll('c')
    .where('h.host', '=', host)
    .executeTakeFirst();
}

/** Every /api/v1 request belongs to the company that owns the Host it was sent to. */
export async function resolveCompany(c: Context<AppEnv>): Promise<Company> {
  // Already found for this request (e.g. by the forms' CORS check before the access check).
  const found = c.get('company') as Company | undefined;
  if (found) return found;
  const host = requestHost(c);
  const { db, companyCache } = c.var.services;
  // Reads may use the rows kept in memory; a write always reads the company's current row (settings, keys' rules).
  const read = c.req.method === 'GET' || c.req.method === 'HEAD';
  const company =
    companyCache && read ? await companyCache.lookup(host, (h) => companyByHost(db, h)) : await companyByHost(db, host);
  if (!company) throw new ApiError('unknown_host', `No company answers on host ${host}.`);
  c.set('company', company);
  return company;
}

/**
 * A page on this machine or in a private network: a `localhost` name, or a loopback, unspecified, private or
 * link-local address, in any spelling `new URL()` accepts (`localhost.`, `0.0.0.0`, `[::]`,
 * `[::ffff:127.0.0.1]`, `2130706433`, `0x7f.1`…). Accepted only on development workspaces.
 */
export function isLocalOrigin(origin: string): boolean {
  try {
    return isLocalHost(new URL(origin).hostname);
  } catch {
    return false;
  }
}

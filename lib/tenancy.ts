import type { Context } from 'hono';
import type { Company } from '../schema/db';
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
  const company = await companyByHost(c.var.services.db, host);
  if (!company) throw new ApiError('unknown_host', `No company answers on host ${host}.`);
  c.set('company', company);
  return company;
}

/** A page on this machine (localhost, *.localhost, 127.0.0.0/8, [::1]): accepted only on development workspaces. */
export function isLocalOrigin(origin: string): boolean {
  let hostname: string;
  try {
    hostname = new URL(origin).hostname;
  } catch {
    return false;
  }
  return (
    hostname === 'localhost' || hostname.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(hostname) || hostname === '[::1]'
  );
}

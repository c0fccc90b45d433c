import type { Context } from 'hono';
import type { Company } from '../schema/platform/db';
import type { Executor } from './db/index';
import type { AppEnv } from './env';
import { ApiError } from './errors';
import { companyAndKey, parseKey } from './keys';
import type { Access } from '../schema/common/scopes';

/** The host a request was sent to, lower-case and without port. */
export function requestHost(c: Context<AppEnv>): string {
  return hostOf(c.req.url);
}

/**
 * The host of a URL as `new URL(url).hostname` gives it, lower-cased. A site's requests all name the same few
 * authorities (`host[:port]`), so the parse is kept for each one seen (at most 1,000, then forgotten all at once).
 */
const hosts = new Map<string, string>();
export function hostOf(url: string): string {
  const start = url.indexOf('//') + 2;
  let end = start;
  while (end < url.length) {
    const code = url.charCodeAt(end);
    // '/', '?', '#' and '\\' end the authority, as the URL parser reads a special scheme's.
    if (code === 47 || code === 63 || code === 35 || code === 92) break;
    end++;
  }
  const authority = url.slice(start, end);
  let host = hosts.get(authority);
  if (host === undefined) {
    host = new URL(url).hostname.toLowerCase();
    if (hosts.size >= 1000) hosts.clear();
    hosts.set(authority, host);
  }
  return host;
}

export async function companyByHost(db: Executor, host: string): Promise<Company | undefined> {
  return db
    .selectFrom('company_hosts as h')
    .innerJoin('companies as c', 'c.id', 'h.company_id')
    .selectAll('c')
    .where('h.host', '=', host)
    .executeTakeFirst();
}

/**
 * Every /api/v1 request belongs to the company that owns the Host it was sent to. With the key the request
 * presents, a company that must be read is read in one statement with that key (kept for `verifyKey` as
 * `keyRead`), so where neither is kept in memory a keyed request spends one round trip on both.
 */
export async function resolveCompany(c: Context<AppEnv>, presentedKey?: string): Promise<Company> {
  // Already found for this request (e.g. by the forms' CORS check before the access check).
  const found = c.get('company') as Company | undefined;
  if (found) return found;
  const host = requestHost(c);
  const { db, companyCache } = c.get('services');
  const prefix = presentedKey === undefined ? undefined : parseKey(presentedKey)?.prefix;
  const load = prefix
    ? async (h: string) => {
        const generation = companyCache?.generation ?? -1;
        const read = await companyAndKey(db, h, prefix, c.var.services.now());
        c.set('keyRead', { prefix, key: read.key, generation });
        return read.company;
      }
    : (h: string) => companyByHost(db, h);
  // Reads may use the rows kept in memory. So may a write with a server key, a visitor's form or an inbound delivery
  // on Node (issue 28): there the rows (and keys) are dropped as soon as the database announces a change, and a
  // request begun after this process's own write waits until its announcements are in, so the row in memory is as
  // current as a read of it and the write makes no round trip for its company. Elsewhere (Workers, whose rows are
  // kept for a TTL; the admin API) a write reads the company's current row.
  const read = c.req.method === 'GET' || c.req.method === 'HEAD';
  const kind = (c.get('access') as Access | undefined)?.kind;
  const announced = companyCache?.notified === true && (kind === 'form' || kind === 'inbound' || kind === 'server');
  const company = companyCache && (read || announced) ? await companyCache.lookup(host, load) : await load(host);
  if (!company) throw new ApiError('unknown_host', `No company answers on host ${host}.`);
  c.set('company', company);
  return company;
}

/**
 * Whether a request may have changed a company, its hosts or its keys, so this process's next reads must wait for
 * the notifications its commit sent (lib/company-cache.ts afterWrite): any write, except a visitor's form or an inbound
 * delivery, whose statements touch people, leads, bookings, inbound channels' counters and the audit log only. Sparing the forms keeps the rows in memory serving while forms
 * keep coming (on PostgreSQL every write otherwise holds them back until a round trip on the listening connection).
 */
export function mayChangeCompanies(c: Context<AppEnv>): boolean {
  if (['GET', 'HEAD', 'OPTIONS'].includes(c.req.method)) return false;
  const kind = (c.get('access') as Access | undefined)?.kind;
  return kind !== 'form' && kind !== 'inbound';
}

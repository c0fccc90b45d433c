import { sha256, randomToken } from '../../lib/crypto';
import { openText, sealText } from '../../lib/crypto-jwe';
import type { Db } from '../../lib/db/index';
import { notFound } from '../../lib/errors';
import { fromBase64 } from '../../lib/webhooks/secrets';
import { type Portal, portals } from '../../schema/common/permits';
import type { Company } from '../../schema/platform/db';

/**
 * The company's portal feed token (migration 0021): `pft_` and 43 random URL-safe characters. Its SHA-256 is checked
 * on every fetch; the token itself is kept encrypted under WEBHOOK_SECRET_KEY (lib/crypto-jwe.ts, the company's id
 * in the authenticated header), so the admin can list the URLs again. Rotation replaces both in one statement:
 * the old URL is 404 from the next fetch (on Workers within the company rows' TTL, 5 s by default).
 */
const newToken = () => `pft_${randomToken(43)}`;

function keyOf(base64Key: string | undefined): Uint8Array {
  if (!base64Key) throw new Error('WEBHOOK_SECRET_KEY is not set: portal feed tokens cannot be encrypted or read.');
  return fromBase64(base64Key);
}

async function tokenColumns(companyId: string, token: string, base64Key: string | undefined) {
  return {
    portal_feed_token_hash: await sha256(token),
    portal_feed_token_jwe: await sealText(keyOf(base64Key), token, { kid: 'portal-feeds', company: companyId }),
  };
}

/** A new token for the company, replacing any it had. */
export async function rotateFeedToken(db: Db, companyId: string, base64Key: string | undefined): Promise<string> {
  const token = newToken();
  const row = await db
    .updateTable('companies')
    .set(await tokenColumns(companyId, token, base64Key))
    .where('id', '=', companyId)
    .returning('id')
    .executeTakeFirst();
  if (!row) throw notFound(`The company ${companyId}`);
  return token;
}

/**
 * The company's token: the one it has, or a first one issued now (a concurrent first issue keeps the first written);
 * `issued` says this read wrote the company row.
 */
export async function feedToken(
  db: Db,
  company: Company,
  base64Key: string | undefined,
): Promise<{ token: string; issued: boolean }> {
  if (company.portal_feed_token_jwe) {
    const { text, header } = await openText(company.portal_feed_token_jwe, keyOf(base64Key));
    if (header.company !== company.id) throw new Error('This portal feed token belongs to another company.');
    return { token: text, issued: false };
  }
  const token = newToken();
  const issued = await db
    .updateTable('companies')
    .set(await tokenColumns(company.id, token, base64Key))
    .where('id', '=', company.id)
    .where('portal_feed_token_jwe', 'is', null)
    .returning('id')
    .executeTakeFirst();
  if (issued) return { token, issued: true };
  const current = await db.selectFrom('companies').selectAll().where('id', '=', company.id).executeTakeFirstOrThrow();
  return feedToken(db, current, base64Key);
}

/**
 * The feeds' URLs on the company's host (its first by name, a public one before localhost): https in production;
 * a development workspace's with the scheme and port the admin API was called on, so a local server's URLs work.
 */
export function feedUrls(company: Company, hosts: readonly string[], token: string, adminUrl: string) {
  const local = (host: string) => host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
  const host = [...hosts].sort((a, b) => Number(local(a)) - Number(local(b)) || a.localeCompare(b))[0];
  if (!host) throw notFound(`A host of the company ${company.id}`);
  const admin = new URL(adminUrl);
  const origin =
    company.environment === 'development' ? `${admin.protocol}//${host}${admin.port ? `:${admin.port}` : ''}` : `https://${host}`;
  const files: Record<Portal, string> = { propertyfinder: 'propertyfinder.xml', bayut: 'bayut.xml' };
  return portals.map((portal) => ({ portal, url: `${origin}/api/v1/feeds/${token}/${files[portal]}` }));
}

/** The company's hosts, by name. */
export async function companyHosts(db: Db, companyId: string): Promise<string[]> {
  const rows = await db.selectFrom('company_hosts').select('host').where('company_id', '=', companyId).orderBy('host').execute();
  return rows.map((row) => row.host);
}

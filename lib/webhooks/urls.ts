import { isLocalhostName } from '../addresses';
import { isBlockedAddress, isIpLiteral } from './ip';

/** Resolves a host name to its addresses (node:dns on Node; Workers have none and rely on literal checks). */
export type HostResolver = (host: string) => Promise<string[]>;

export type Environment = 'production' | 'development';

/**
 * Where webhooks and rebuild hooks may be sent. Any workspace: http(s) only, no user name or password in the
 * URL. Production workspaces: https only, and the host may be neither a loopback/private/link-local address
 * nor a name resolving to one (checked when the URL is set and again before each attempt, so a DNS change
 * cannot point a subscription inside our network). Development workspaces may use http://localhost, loopback
 * and private addresses. Returns why the URL is refused, or null.
 */
export async function urlProblem(text: string, environment: Environment, resolve?: HostResolver): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'It is not an absolute URL.';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'Only http and https URLs can receive webhooks.';
  if (url.username || url.password) return 'The URL may not carry a user name or password.';
  if (environment === 'development') return null;
  if (url.protocol !== 'https:') return 'Production workspaces send webhooks to https URLs only.';
  if (isLocalhostName(url.hostname)) return 'Production workspaces cannot send to localhost.';
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (isIpLiteral(host)) {
    return isBlockedAddress(host) ? 'Production workspaces cannot send to loopback, private or link-local addresses.' : null;
  }
  const addresses = resolve ? await resolve(host).catch(() => [] as string[]) : [];
  if (addresses.some(isBlockedAddress)) {
    return `${host} resolves to a loopback, private or link-local address, which production workspaces cannot reach.`;
  }
  return null;
}

import { isLocalhostName, parseAddress } from '../addresses';
import { isBlockedAddress } from './reachable';

/**
 * One guard for everything the platform fetches from a URL a company gave (webhook deliveries, the static-site rebuild
 * hook, calendar imports): resolve the name once, check every address it resolves to, connect to those addresses only.
 * Development workspaces may reach anything http(s) (their receivers run on this machine or in a private network).
 * No other file of functions/ or lib/ calls the global `fetch` (test/platform/layout.test.ts).
 */

export type Environment = 'production' | 'development';

/** Every address a host name resolves to (node:dns on Node; Workers have no resolver). Rejects when it does not resolve. */
export type HostResolver = (host: string) => Promise<string[]>;

/**
 * The platform's fetch. `connectTo`: the checked addresses of the URL's host, the only ones it may connect to; the
 * name still goes in the Host header and in TLS (SNI and the certificate check). Node pins them
 * (lib/node/pinned-fetch.ts); Cloudflare's fetch resolves names itself and cannot (`unpinnedFetch`).
 */
export type OutboundFetch = (url: string, init: RequestInit, connectTo?: readonly string[]) => Promise<Response>;

/** What a runtime fetches with: WebhookRuntime carries it (`services.webhooks`). */
export type Outbound = { fetch: OutboundFetch; resolveHost?: HostResolver };

/** Workers' fetch, called through a wrapper (Workers refuse a fetch detached from the global object); never pinned. */
export const unpinnedFetch: OutboundFetch = (url, init) => fetch(url, init);

type Checked = { refused: string } | { unresolved: string } | { connectTo?: string[] };

/** The workspace's rules on one URL, resolving its host (once) where the runtime can. */
async function check(text: string, environment: Environment, resolve?: HostResolver): Promise<Checked> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { refused: 'It is not an absolute URL.' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { refused: 'Only http and https URLs can be reached.' };
  if (url.username || url.password) return { refused: 'The URL may not carry a user name or password.' };
  if (environment === 'development') return {};
  if (url.protocol !== 'https:') return { refused: 'Production workspaces reach https URLs only.' };
  if (isLocalhostName(url.hostname)) return { refused: 'Production workspaces cannot reach localhost.' };
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (parseAddress(host) !== null) {
    return isBlockedAddress(host) ? { refused: `${host} is not a public address, which production workspaces need.` } : {};
  }
  // Workers: names are not looked up here, and Cloudflare's fetch reaches the public Internet only.
  if (!resolve) return {};
  const addresses = await resolve(host).catch(() => [] as string[]);
  if (addresses.length === 0) return { unresolved: `${host} does not resolve.` };
  const blocked = addresses.filter(isBlockedAddress);
  if (blocked.length > 0) {
    return { refused: `${host} resolves to ${blocked.join(', ')}, not a public address, which production workspaces need.` };
  }
  return { connectTo: addresses };
}

/**
 * Why the workspace may not fetch this URL, or null: for the admin routes that set a URL (a 400 there). A name that
 * does not resolve is refused.
 */
export async function urlProblem(text: string, environment: Environment, resolve?: HostResolver): Promise<string | null> {
  const checked = await check(text, environment, resolve);
  if ('refused' in checked) return checked.refused;
  if ('unresolved' in checked) return checked.unresolved;
  return null;
}

export type Guarded = { refused: string } | { response: Response };

/**
 * Fetches a URL under the workspace's rules: `{refused}` without a connection when the rules refuse it, else the
 * response, the connection made to the addresses just checked (no second resolution: DNS rebinding cannot turn a
 * checked public name into a private address). Redirects are never followed (`redirect: 'manual'`): a caller that
 * follows one fetches its Location through here again. A name that does not resolve throws, as a network failure.
 */
export async function guardedFetch(
  outbound: Outbound,
  environment: Environment,
  url: string,
  init: RequestInit,
): Promise<Guarded> {
  const checked = await check(url, environment, outbound.resolveHost);
  if ('refused' in checked) return checked;
  if ('unresolved' in checked) throw new TypeError(checked.unresolved);
  return { response: await outbound.fetch(url, { ...init, redirect: 'manual' }, checked.connectTo) };
}

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

/** What {@link guardedText} answers: nothing new (304), the body as text with the answer's headers, or what went wrong. */
export type GuardedText =
  | { kind: 'unchanged' }
  | { kind: 'body'; text: string; headers: Headers }
  | { kind: 'failed'; error: string };

export type TextLimits = {
  /** What the URL is, for the messages: "feed" gives "HTTP 500 from the feed." */
  what: string;
  timeoutMs: number;
  maxRedirects: number;
  maxBytes: number;
};

/**
 * Fetches a text document from a URL a company gave, under the workspace's rules: every hop of a redirect checked
 * again (followed by hand, at most `maxRedirects`), a timeout over the whole, the body read as a stream and given up
 * past `maxBytes` (a huge body is never held). `headers` may make it a conditional GET: a 304 is `unchanged`.
 * Never throws: a failure is `failed` with what went wrong, in words a company's admin reads.
 */
export async function guardedText(
  outbound: Outbound,
  environment: Environment,
  url: string,
  headers: Record<string, string>,
  limits: TextLimits,
): Promise<GuardedText> {
  const { what } = limits;
  let target = url;
  try {
    const signal = AbortSignal.timeout(limits.timeoutMs);
    for (let hop = 0; ; hop++) {
      const sent = await guardedFetch(outbound, environment, target, { headers, signal });
      if ('refused' in sent) return { kind: 'failed', error: `The ${what} address is refused: ${sent.refused}` };
      const res = sent.response;
      if (res.status >= 300 && res.status < 400 && res.status !== 304) {
        await res.body?.cancel();
        const location = res.headers.get('location');
        if (!location) return { kind: 'failed', error: `HTTP ${res.status} without a Location.` };
        if (hop >= limits.maxRedirects) return { kind: 'failed', error: `More than ${limits.maxRedirects} redirects.` };
        target = new URL(location, target).toString();
        continue;
      }
      if (res.status === 304) return { kind: 'unchanged' };
      if (!res.ok) {
        await res.body?.cancel();
        return { kind: 'failed', error: `HTTP ${res.status} from the ${what}.` };
      }
      const text = await limitedText(res, limits.maxBytes);
      if (text === undefined) return { kind: 'failed', error: `The ${what} is larger than ${limits.maxBytes} bytes.` };
      return { kind: 'body', text, headers: res.headers };
    }
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === 'TimeoutError' || name === 'AbortError') return { kind: 'failed', error: `The ${what} did not answer in time.` };
    return { kind: 'failed', error: `The ${what} could not be fetched: ${(error as Error).message}` };
  }
}

/** The body as text, or undefined once it passes `max` bytes (read as a stream, so a huge body is not held). */
async function limitedText(res: Response, max: number): Promise<string | undefined> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}

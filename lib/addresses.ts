import ipaddr from 'ipaddr.js';

/**
 * Which hosts are on this machine or inside a private network, for the rules that keep production workspaces
 * away from them: publishable-key origins (lib/tenancy.ts) and webhook URLs (lib/webhooks). IP literals are
 * classified by `ipaddr.js` (plain code, runs on Workers too).
 */
export type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * An IP literal as `URL.hostname` or a resolver gives it (IPv6 in brackets or not, with a zone or not), else
 * null. IPv4 only in four-part decimal: `new URL()` has already turned `2130706433`, `0x7f.1` or `127.1` into
 * `127.0.0.1`, and a name is not an address.
 */
export function parseAddress(text: string): Address | null {
  const bare = text.replace(/^\[|\]$/g, '');
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare);
  if (bare.includes(':') && ipaddr.IPv6.isValid(bare)) return ipaddr.IPv6.parse(bare);
  return null;
}

const nat64 = ipaddr.parseCIDR('64:ff9b::/96');

/** The IPv4 address an IPv6 one stands for (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`), else itself. */
export function unwrapAddress(address: Address): Address {
  if (address.kind() === 'ipv4') return address;
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  if (v6.match(nat64)) return ipaddr.IPv4.parse(v6.toByteArray().slice(12).join('.'));
  return v6;
}

// Loopback, unspecified (0.0.0.0/8, ::), RFC 1918 and shared (100.64.0.0/10) space, link-local, unique local.
const localRanges = new Set(['loopback', 'unspecified', 'private', 'carrierGradeNat', 'linkLocal', 'uniqueLocal']);

/** Whether an address is on this machine or in a private network (IPv4 inside IPv6 judged as IPv4). */
export function isLocalAddress(address: Address): boolean {
  return localRanges.has(unwrapAddress(address).range());
}

/** Whether a host name is a `localhost` name: `localhost` or `*.localhost`, any case, with a trailing dot or not. */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** A `localhost` name or a local IP literal, as `URL.hostname` gives it. */
export function isLocalHost(hostname: string): boolean {
  if (isLocalhostName(hostname)) return true;
  const address = parseAddress(hostname);
  return address !== null && isLocalAddress(address);
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

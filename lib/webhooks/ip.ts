import ipaddr from 'ipaddr.js';
import { isLocalAddress, parseAddress, unwrapAddress } from '../addresses';

/**
 * Addresses a production webhook may not reach: the local ones (loopback, unspecified, private, shared/CGNAT,
 * link-local, unique local; lib/addresses.ts) and also broadcast, multicast, reserved and documentation ranges,
 * and the IPv4-compatible block `::/112`. IPv4-mapped and NAT64 addresses are checked as IPv4.
 */
const blockedV4 = new Set(['broadcast', 'multicast', 'reserved']);
const blockedV6 = ['::/112', '2001:db8::/32', 'ff00::/8'].map((cidr) => ipaddr.parseCIDR(cidr));

/** True when the text is an IP address in a range production deliveries must not reach. */
export function isBlockedAddress(text: string): boolean {
  const parsed = parseAddress(text);
  if (parsed === null) return false;
  if (isLocalAddress(parsed)) return true;
  const address = unwrapAddress(parsed);
  if (address.kind() === 'ipv4') return blockedV4.has(address.range());
  return blockedV6.some((range) => address.match(range));
}

export function isIpLiteral(host: string): boolean {
  return parseAddress(host) !== null;
}

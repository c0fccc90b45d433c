import ipaddr from 'ipaddr.js';
import { parseAddress } from '../addresses';

/**
 * The addresses a production workspace may send requests to: globally reachable unicast only, as the IANA
 * special-purpose address registries mark it (IPv4: iana.org/assignments/iana-ipv4-special-registry, IPv6:
 * iana.org/assignments/iana-ipv6-special-registry, RFC 6890). Plain code: runs on Workers too.
 *
 * The rule: an IPv6 address that embeds an IPv4 one is judged by that IPv4 address; any other address is refused
 * when it lies in a special-purpose block that is not globally reachable (or outside IPv6's global unicast space).
 */

/**
 * IPv4: ipaddr.js's `range()` follows the IPv4 registry (0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12,
 * 192.0.0/24, TEST-NETs, 192.88.99/24, 192.168/16, 198.18/15, 240/4, 255.255.255.255) and adds multicast 224/4; of
 * its names only `unicast` (no special block) and the registry's globally reachable `as112` and `amt` may be reached.
 * An allow-list: a block ipaddr.js learns to name later is refused until it is judged here.
 */
const reachableV4 = new Set(['unicast', 'as112', 'amt']);

const block = (cidr: string) => ipaddr.IPv6.parseCIDR(cidr);

/**
 * IPv6 forms that carry an IPv4 address, and the byte it starts at. ipaddr.js names most of these blocks (`ipv4Mapped`,
 * `rfc6145`, `rfc6052`, `6to4`) but unwraps only the mapped form, has no IPv4-compatible block (`::7f00:1` is
 * `unicast` to it) and reads the text `::a.b.c.d` as `::ffff:a.b.c.d` (see `canonical`). Teredo (2001::/32) is not
 * here: its client address is obfuscated, and it is refused with 2001::/23 (below).
 */
const mapped = block('::ffff:0:0/96'); // IPv4-mapped, ::ffff:a.b.c.d (RFC 4291 §2.5.5.2): the IPv4 address itself
const embedding: Array<[ipaddr.IPv6, number, number]> = [
  [...mapped, 12],
  [...block('::ffff:0:0:0/96'), 12], // IPv4-translated, ::ffff:0:a.b.c.d (RFC 7915)
  [...block('::/96'), 12], // IPv4-compatible, ::a.b.c.d, deprecated (RFC 4291 §2.5.5.1); also :: and ::1
  [...block('64:ff9b::/96'), 12], // NAT64 well-known prefix (RFC 6052)
  [...block('64:ff9b:1::/48'), 12], // NAT64 local-use prefix (RFC 8215), as a /96
  [...block('2002::/16'), 2], // 6to4, 2002:AABB:CCDD::/48 (RFC 3056)
];

/** IPv6 global unicast (RFC 4291 §2.4): outside it the blocks are local, reserved, unassigned or multicast. */
const globalUnicast = block('2000::/3');

/** The IPv6 registry's blocks that are globally reachable: the NAT64 prefix outside 2000::/3, those inside 2001::/23. */
const globallyReachable = [
  '64:ff9b::/96',
  '2001:1::1/128', // Port Control Protocol anycast
  '2001:1::2/128', // TURN anycast
  '2001:1::3/128', // DNS-SD Service Registration Protocol anycast
  '2001:3::/32', // AMT
  '2001:4:112::/48', // AS112-v6
  '2001:20::/28', // ORCHIDv2
  '2001:30::/28', // Drone Remote ID entity tags
].map(block);

/** Blocks of 2000::/3 the registry marks not globally reachable: IETF assignments (Teredo, benchmarking, ORCHID), documentation. */
const notReachable = ['2001::/23', '2001:db8::/32', '3fff::/20'].map(block);

/** The IPv4 address an IPv6 address embeds (see `embedding`), else null. */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const bytes = address.toByteArray();
  for (const [prefix, length, at] of embedding) {
    if (address.match(prefix, length)) return new ipaddr.IPv4(bytes.slice(at, at + 4));
  }
  return null;
}

function reachableV6(address: ipaddr.IPv6): boolean {
  if (globallyReachable.some((range) => address.match(range))) return true;
  return address.match(globalUnicast) && !notReachable.some((range) => address.match(range));
}

/** The text as the URL parser reads it (WHATWG, as fetch does): `::127.0.0.1` is `::7f00:1`, IPv4-compatible. */
function canonical(text: string): string {
  const bare = text.replace(/^\[|\]$/g, '');
  if (!bare.includes(':') || !bare.includes('.')) return bare;
  try {
    return new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  } catch {
    return bare;
  }
}

/**
 * True when a production workspace may not send to this address (as a resolver or `URL.hostname` gives it, IPv6 with
 * or without brackets and zone); text that is no address is refused too. An IPv4-mapped address is its IPv4 address;
 * another IPv6 address is refused when the IPv4 address it embeds is, or when its block is not globally reachable.
 */
export function isBlockedAddress(text: string): boolean {
  const address = parseAddress(canonical(text));
  if (address === null) return true;
  if (address.kind() === 'ipv4') return !reachableV4.has(address.range());
  const v6 = address as ipaddr.IPv6;
  const inner = embeddedIPv4(v6);
  if (inner && !reachableV4.has(inner.range())) return true;
  if (inner && v6.match(...mapped)) return false;
  return !reachableV6(v6);
}

/**
 * Addresses a production webhook may not reach: loopback, private, link-local, shared (CGNAT), multicast,
 * reserved and documentation ranges, in IPv4 and IPv6 (IPv4-mapped and NAT64 addresses are checked as IPv4).
 * Plain code (no node:net), so it runs on Workers too.
 */
const blockedV4: Array<[string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    value = value * 256 + Number(part);
  }
  return value;
}

/** Eight 16-bit groups, or null. Accepts `::` compression, brackets, a zone and a trailing dotted IPv4. */
export function parseIPv6(text: string): number[] | null {
  let rest = text.replace(/^\[|\]$/g, '').toLowerCase();
  const zone = rest.indexOf('%');
  if (zone >= 0) rest = rest.slice(0, zone);
  if (rest.includes('.')) {
    const lastColon = rest.lastIndexOf(':');
    const v4 = parseIPv4(rest.slice(lastColon + 1));
    if (v4 === null || lastColon < 0) return null;
    rest = `${rest.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = rest.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groupsOf(halves[0] ?? '');
  const back = halves.length === 2 ? groupsOf(halves[1] ?? '') : [];
  const given = head.length + back.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return null;
  const groups = [...head, ...Array<string>(8 - given).fill('0'), ...back];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => Number.parseInt(g, 16));
}

function inV4(value: number, [base, bits]: [string, number]): boolean {
  const size = 2 ** (32 - bits);
  const start = parseIPv4(base) as number;
  return value >= start && value < start + size;
}

function blockedIPv4(value: number): boolean {
  return value === 0xffffffff || blockedV4.some((range) => inV4(value, range));
}

function blockedIPv6(g: number[]): boolean {
  const [a = 0, b = 0] = g;
  const embedded = ((g[6] ?? 0) * 65536 + (g[7] ?? 0)) >>> 0;
  if (g.slice(0, 7).every((x) => x === 0)) return true; // :: and ::1
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return blockedIPv4(embedded); // ::ffff:a.b.c.d
  if (a === 0x64 && b === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return blockedIPv4(embedded); // NAT64
  if ((a & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((a & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((a & 0xff00) === 0xff00) return true; // multicast
  if (a === 0x2001 && b === 0x0db8) return true; // documentation
  return false;
}

/** True when the text is an IP address in a range production deliveries must not reach. */
export function isBlockedAddress(text: string): boolean {
  const v4 = parseIPv4(text);
  if (v4 !== null) return blockedIPv4(v4);
  const v6 = parseIPv6(text);
  return v6 !== null && blockedIPv6(v6);
}

export function isIpLiteral(host: string): boolean {
  return parseIPv4(host) !== null || parseIPv6(host) !== null;
}

import { describe, expect, it } from 'vitest';
import { resolveHost } from '../../lib/node/dns';
import { urlProblem } from '../../lib/outbound/guard';
import { isBlockedAddress } from '../../lib/outbound/reachable';

/**
 * The outbound rules on their own (lib/outbound): which addresses a production workspace may reach, from the IANA
 * special-purpose address registries (IPv4: iana.org/assignments/iana-ipv4-special-registry, IPv6:
 * iana.org/assignments/iana-ipv6-special-registry), and names judged by every address they resolve to.
 */

// Refused on production: one address of each block of the registries that is not globally reachable, multicast, and
// IPv6 forms that embed such an IPv4 address. [address, what it is].
const refused: Array<[string, string]> = [
  ['0.0.0.0', '"this network" 0.0.0.0/8'],
  ['0.1.2.3', '"this network" 0.0.0.0/8'],
  ['10.1.2.3', 'private-use 10/8'],
  ['100.64.0.1', 'shared address space 100.64/10'],
  ['127.0.0.1', 'loopback'],
  ['127.1.2.3', 'loopback 127/8'],
  ['169.254.169.254', 'link local (cloud metadata)'],
  ['172.16.0.1', 'private-use 172.16/12'],
  ['172.31.255.255', 'private-use 172.16/12'],
  ['192.0.0.8', 'IETF protocol assignments 192.0.0/24'],
  ['192.0.0.170', 'NAT64/DNS64 discovery'],
  ['192.0.2.1', 'documentation TEST-NET-1'],
  ['192.88.99.2', '6to4 relay anycast (deprecated), 6a44'],
  ['192.168.0.10', 'private-use 192.168/16'],
  ['198.18.0.1', 'benchmarking 198.18/15'],
  ['198.19.255.254', 'benchmarking 198.18/15'],
  ['198.51.100.7', 'documentation TEST-NET-2'],
  ['203.0.113.9', 'documentation TEST-NET-3'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved 240/4'],
  ['255.255.255.255', 'limited broadcast'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback, dotted'],
  ['::ffff:a9fe:a9fe', 'IPv4-mapped link local'],
  ['::127.0.0.1', 'IPv4-compatible loopback (the issue’s [::127.0.0.1])'],
  ['::a00:1', 'IPv4-compatible private'],
  ['::8.8.8.8', 'IPv4-compatible (deprecated, not global unicast) even of a public address'],
  ['::ffff:0:7f00:1', 'IPv4-translated loopback (the issue’s [::ffff:0:7f00:1])'],
  ['::ffff:0:808:808', 'IPv4-translated (not global unicast) even of a public address'],
  ['64:ff9b::7f00:1', 'NAT64 well-known prefix, loopback inside'],
  ['64:ff9b::a00:1', 'NAT64 well-known prefix, private inside'],
  ['64:ff9b:1::7f00:1', 'NAT64 local-use prefix (the issue’s [64:ff9b:1::7f00:1])'],
  ['64:ff9b:1::808:808', 'NAT64 local-use prefix, not globally reachable'],
  ['100::1', 'discard-only 100::/64'],
  ['100:0:0:1::1', 'dummy IPv6 prefix 100:0:0:1::/64'],
  ['2001::1', 'Teredo 2001::/32 (client address obfuscated)'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo with a public server address'],
  ['2001:2::1', 'benchmarking 2001:2::/48'],
  ['2001:10::1', 'ORCHID (deprecated) 2001:10::/28'],
  ['2001:1ff::1', 'IETF protocol assignments 2001::/23'],
  ['2001:db8::1', 'documentation 2001:db8::/32'],
  ['2002:7f00:1::', '6to4 of loopback (the issue’s [2002:7f00:1::])'],
  ['2002:c0a8:1::1', '6to4 of 192.168.0.1'],
  ['3fff::1', 'documentation 3fff::/20'],
  ['5f00::1', 'segment routing SIDs 5f00::/16'],
  ['fc00::1', 'unique local fc00::/7'],
  ['fd12:3456::1', 'unique local fc00::/7'],
  ['fe80::1', 'link local fe80::/10'],
  ['fe80::1%eth0', 'link local with a zone'],
  ['fec0::1', 'site local (deprecated)'],
  ['ff02::1', 'multicast'],
  ['4000::1', 'IETF reserved, outside global unicast 2000::/3'],
];

// Reachable: plain public addresses, and the registry's globally reachable special blocks.
const reachable: Array<[string, string]> = [
  ['8.8.8.8', 'public'],
  ['172.32.0.1', 'public, just outside 172.16/12'],
  ['100.128.0.1', 'public, just outside 100.64/10'],
  ['192.31.196.1', 'AS112-v4'],
  ['192.52.193.1', 'AMT'],
  ['192.175.48.1', 'direct delegation AS112'],
  ['::ffff:808:808', 'IPv4-mapped public'],
  ['64:ff9b::808:808', 'NAT64 well-known prefix of a public address'],
  ['2002:808:808::1', '6to4 of a public address'],
  ['2001:3::1', 'AMT'],
  ['2001:4:112::1', 'AS112-v6'],
  ['2001:20::1', 'ORCHIDv2'],
  ['2620:4f:8000::1', 'direct delegation AS112'],
  ['2606:4700::1111', 'public'],
];

const literal = (address: string) => (address.includes(':') ? `[${address}]` : address);

describe('the addresses production workspaces may reach', () => {
  it.each(refused)('refuses %s (%s) as a literal and as a resolved address; development accepts it', async (address) => {
    expect(isBlockedAddress(address)).toBe(true);
    if (!address.includes('%')) {
      expect(await urlProblem(`https://${literal(address)}/x`, 'production')).toMatch(/not a public address/);
      expect(await urlProblem(`http://${literal(address)}:8080/x`, 'development')).toBeNull();
    }
    const answering = async () => ['93.184.215.14', address];
    expect(await urlProblem('https://hooks.example.com/x', 'production', answering)).toMatch(/resolves to .*not a public/);
    expect(await urlProblem('http://hooks.example.com/x', 'development', answering)).toBeNull();
  });

  it.each(reachable)('accepts %s (%s)', async (address) => {
    expect(isBlockedAddress(address)).toBe(false);
    expect(await urlProblem(`https://${literal(address)}/x`, 'production')).toBeNull();
    expect(await urlProblem('https://hooks.example.com/x', 'production', async () => [address])).toBeNull();
  });

  it('refuses text that is no address when a resolver answers it', () => {
    expect(isBlockedAddress('not-an-address')).toBe(true);
  });
});

describe('host names', () => {
  it('refuses a name that does not resolve on production (the check resolves it), not on development', async () => {
    const failing = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect(await urlProblem('https://not-yet.example.com/x', 'production', failing)).toBe(
      'not-yet.example.com does not resolve.',
    );
    expect(await urlProblem('https://empty.example.com/x', 'production', async () => [])).toMatch(/does not resolve/);
    expect(await urlProblem('http://not-yet.example.com/x', 'development', failing)).toBeNull();
  });

  it('refuses localhost names, http and credentials on production; http and credentials everywhere as before', async () => {
    expect(await urlProblem('https://api.localhost/x', 'production')).toMatch(/localhost/);
    expect(await urlProblem('http://hooks.example.com/x', 'production', async () => ['8.8.8.8'])).toMatch(/https/);
    expect(await urlProblem('https://u:p@hooks.example.com/x', 'development')).toMatch(/user name or password/);
    expect(await urlProblem('ftp://hooks.example.com/x', 'development')).toMatch(/http and https/);
  });

  it('resolves names with the system resolver on Node', async () => {
    expect(await resolveHost('localhost')).toEqual(expect.arrayContaining([expect.stringMatching(/^(127\.0\.0\.1|::1)$/)]));
  });
});

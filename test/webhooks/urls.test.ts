import { describe, expect, it } from 'vitest';
import { resolveHost } from '../../lib/node/dns';
import { isBlockedAddress } from '../../lib/webhooks/ip';
import { urlProblem } from '../../lib/webhooks/urls';

/** The production URL rules on their own: address ranges, and names checked by what they resolve to. */
describe('addresses production webhooks may not reach', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['192.168.0.10', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['255.255.255.255', true],
    ['::1', true],
    ['::', true],
    ['::ffff:7f00:1', true],
    ['fd12:3456::1', true],
    ['fe80::1%eth0', true],
    ['64:ff9b::a00:1', true],
    ['172.32.0.1', false],
    ['8.8.8.8', false],
    ['::ffff:808:808', false],
    ['2606:4700::1111', false],
  ])('%s → blocked %s', (address, blocked) => {
    expect(isBlockedAddress(address)).toBe(blocked);
  });
});

describe('host names', () => {
  // DNS is the outside world here: a resolver answering as a DNS change would.
  const answering = (addresses: string[]) => async () => addresses;

  it('refuses a name that resolves to a private address, in production only', async () => {
    expect(await urlProblem('https://hooks.example.com/x', 'production', answering(['93.184.215.14', '10.0.0.7']))).toMatch(
      /resolves to a loopback, private or link-local address/,
    );
    expect(await urlProblem('https://hooks.example.com/x', 'production', answering(['93.184.215.14']))).toBeNull();
    expect(await urlProblem('http://hooks.example.com/x', 'development', answering(['10.0.0.7']))).toBeNull();
  });

  it('accepts a name that does not resolve yet (an attempt then fails and is retried)', async () => {
    const failing = async () => {
      throw new Error('ENOTFOUND');
    };
    expect(await urlProblem('https://not-yet.example.com/x', 'production', failing)).toBeNull();
  });

  it('resolves names with the system resolver on Node', async () => {
    expect(await resolveHost('localhost')).toEqual(expect.arrayContaining([expect.stringMatching(/^(127\.0\.0\.1|::1)$/)]));
  });
});

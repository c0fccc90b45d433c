import { describe, expect, it } from 'vitest';
import { isLocalOrigin } from '../../lib/addresses';

/** The classifier on its own: pages on this machine or in a private network, in every spelling a URL allows. */
describe('origins on this machine or in a private network', () => {
  it.each([
    'http://localhost:3000',
    'http://localhost.:3000',
    'http://LOCALHOST:3000',
    'http://LocalHost.',
    'http://app.localhost',
    'http://app.localhost.:8080',
    'http://127.0.0.1:8080',
    'http://127.1.2.3',
    'http://127.1',
    'http://2130706433',
    'http://0x7f.1',
    'http://0x7f000001',
    'http://017700000001',
    'http://0.0.0.0:3000',
    'http://0:3000',
    'http://[::]:3000',
    'http://[::1]:3000',
    'http://[0:0:0:0:0:0:0:1]',
    'http://[::ffff:127.0.0.1]',
    'http://[::ffff:7f00:1]',
    'http://[::ffff:192.168.0.1]',
    'http://[64:ff9b::10.0.0.1]',
    'http://10.0.0.5',
    'http://172.16.0.1',
    'http://172.31.255.255',
    'http://192.168.1.10:8080',
    'http://169.254.169.254',
    'http://100.64.0.1',
    'http://[fc00::1]',
    'http://[fd12:3456::1]',
    'http://[fe80::1]',
    'https://10.0.0.5:8443',
  ])('%s is local', (origin) => {
    expect(isLocalOrigin(origin)).toBe(true);
  });

  it.each([
    'https://www.example.com',
    'https://localhost.example.com',
    'https://mylocalhost.com',
    'http://172.15.255.255',
    'http://172.32.0.1',
    'http://192.169.0.1',
    'http://8.8.8.8',
    'http://[2606:4700::1111]',
    'http://[::ffff:8.8.8.8]',
    'not a url',
    'null',
  ])('%s is not local', (origin) => {
    expect(isLocalOrigin(origin)).toBe(false);
  });
});

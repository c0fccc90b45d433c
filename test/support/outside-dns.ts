import type { HostResolver } from '../../lib/outbound/guard';

/**
 * The outside world's DNS as the tests see it (lib/outbound/guard.ts resolves every name a production URL names):
 * the documentation domains (RFC 2606: example.com, .net, .org and their subdomains) and the hosts named below answer a
 * public address; any other name does not resolve. The tests never depend on the machine's DNS or network.
 */
const publicHosts = new Set(['api.netlify.com']);
const publicAddress = '93.184.215.14';

export const outsideDns: HostResolver = async (host) => {
  if (/(^|\.)example\.(com|net|org)$/.test(host) || publicHosts.has(host)) return [publicAddress];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND', hostname: host });
};

import { lookup } from 'node:dns/promises';
import type { HostResolver } from '../outbound/guard';

/** Every address a host name resolves to (what fetch may connect to), within 3 seconds. */
export const resolveHost: HostResolver = async (host) => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`resolving ${host} timed out`)), 3000);
  });
  try {
    const found = await Promise.race([lookup(host, { all: true, verbatim: true }), timeout]);
    return found.map((entry) => entry.address);
  } finally {
    clearTimeout(timer);
  }
};

import type { LookupAddress } from 'node:dns';
import { isIPv6 } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { type OutboundFetch, unpinnedFetch } from '../outbound/guard';

type Lookup = (
  host: string,
  options: { family?: number | string; all?: boolean },
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

/**
 * A `net.connect` lookup that answers the checked addresses and never asks DNS: the connection goes to what
 * lib/outbound/guard.ts checked, whatever the name resolves to by now. Node asks with `all: true` (it tries each
 * address in turn, `autoSelectFamily`) or for one address of a family.
 */
function answering(addresses: readonly string[]): Lookup {
  const all: LookupAddress[] = addresses.map((address) => ({ address, family: isIPv6(address) ? 6 : 4 }));
  return (host, options, callback) => {
    const family = Number(options.family) || 0;
    const wanted = family === 0 ? all : all.filter((entry) => entry.family === family);
    const [first] = wanted;
    if (!first) {
      callback(Object.assign(new Error(`no checked IPv${family} address for ${host}`), { code: 'ENOTFOUND' }), []);
      return;
    }
    if (options.all) callback(null, wanted);
    else callback(null, first.address, first.family);
  };
}

/**
 * Node's outbound fetch (lib/outbound/guard.ts `OutboundFetch`): with `connectTo`, undici's fetch on an Agent of its
 * own whose every connection is looked up by {@link answering} (the URL's name stays in the Host header, SNI and the
 * certificate check); the Agent is closed once the response is done. Without (an IP literal, a development
 * workspace), `base`: the global fetch unless a test gives its own.
 */
export function pinnedFetch(base: (url: string, init: RequestInit) => Promise<Response> = unpinnedFetch): OutboundFetch {
  return async (url, init, connectTo) => {
    if (!connectTo) return base(url, init);
    const agent = new Agent({ connect: { lookup: answering(connectTo) } });
    try {
      const response = await undiciFetch(url, { ...(init as object), dispatcher: agent });
      // Graceful: the body may still be read; the Agent's sockets close when it is.
      void agent.close().catch(() => {});
      return response as unknown as Response;
    } catch (error) {
      void agent.destroy().catch(() => {});
      throw error;
    }
  };
}

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomToken } from '../../lib/crypto';

/**
 * A siteverify server on loopback that answers as Cloudflare Turnstile's does: form-encoded `secret`,
 * `response` and `remoteip` in; `{success, hostname, "error-codes"}` out. Tokens are issued by the test for
 * a hostname, are good once (a second use is `timeout-or-duplicate`), and need the secret given here.
 * Every request is kept, so a test can check what the API sent.
 */
export type SiteverifyRequest = { secret: string; response: string; remoteip: string | null };

export async function startTurnstileVerifier(secret = `0x${randomToken(30)}`) {
  const tokens = new Map<string, { hostname: string; used: boolean }>();
  const requests: SiteverifyRequest[] = [];
  let failing = false;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      if (failing) {
        res.writeHead(500).end('down');
        return;
      }
      const form = new URLSearchParams(body);
      const request = { secret: form.get('secret') ?? '', response: form.get('response') ?? '', remoteip: form.get('remoteip') };
      requests.push(request);
      const answer = (value: object) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(value));
      if (request.secret !== secret) return answer({ success: false, 'error-codes': ['invalid-input-secret'] });
      const token = tokens.get(request.response);
      if (!token) return answer({ success: false, 'error-codes': ['invalid-input-response'] });
      if (token.used) return answer({ success: false, 'error-codes': ['timeout-or-duplicate'] });
      token.used = true;
      answer({ success: true, hostname: token.hostname, challenge_ts: new Date().toISOString(), 'error-codes': [] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/turnstile/v0/siteverify`,
    secret,
    requests,
    /** A token the widget would have given a visitor on a page of `hostname`. */
    issue(hostname: string): string {
      const token = `tok_${randomToken(40)}`;
      tokens.set(token, { hostname, used: false });
      return token;
    },
    /** From now on answer 500, as an outage would. */
    fail(on = true) {
      failing = on;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { dispatchDue } from '../../lib/webhooks/local';
import type { TestApi } from './harness';

/**
 * The receiving end of an integration's webhooks, as the API reference recommends it: a real HTTP endpoint on
 * 127.0.0.1 that verifies every delivery's signature, answers at once, skips the integration's own echoes (events
 * `caused_by` its key) and duplicates (by event id), and queues the rest for the integration to work afterwards.
 * `drop` loses chosen events on purpose (answered 200, then discarded: a crash before the queue kept them), so a
 * test shows that `updated_since` pulls recover them.
 */
export type ReceivedEvent = { id: string; type: string; created_at: string; caused_by: string; data: Record<string, any> };

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
  });

export class WebhookReceiver {
  readonly stats = { received: 0, refused: 0, echoes: 0, duplicates: 0 };
  readonly dropped: ReceivedEvent[] = [];
  drop: (event: ReceivedEvent) => boolean = () => false;
  private readonly queue: ReceivedEvent[] = [];
  private readonly seen = new Set<string>();
  private webhook: Webhook | undefined;
  private server: Server | undefined;

  /** `ownKeyPrefix`: the prefix of the integration's server key, whose writes come back as echoes. */
  constructor(private readonly ownKeyPrefix: string) {}

  /** Starts the endpoint; its URL, for the webhook subscription. */
  async listen(): Promise<string> {
    const server = createServer((req, res) => void this.receive(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/property-api`;
  }

  /** The subscription's signing secret, given once when it was created. */
  useSecret(secret: string): void {
    this.webhook = new Webhook(secret);
  }

  close(): Promise<void> {
    const server = this.server;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  }

  /** The queued events, oldest first, taken off the queue. */
  take(): ReceivedEvent[] {
    return this.queue.splice(0);
  }

  /** Verify, answer at once, work afterwards (the order of the API reference's example). */
  private async receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    this.stats.received++;
    let event: ReceivedEvent;
    try {
      event = this.webhook?.verify(body, headers) as ReceivedEvent;
    } catch {
      this.stats.refused++;
      res.writeHead(400).end('invalid signature');
      return;
    }
    res.writeHead(200).end();
    if (event.caused_by === `api:${this.ownKeyPrefix}`) {
      this.stats.echoes++;
      return;
    }
    if (this.seen.has(event.id)) {
      this.stats.duplicates++;
      return;
    }
    this.seen.add(event.id);
    if (this.drop(event)) this.dropped.push(event);
    else this.queue.push(event);
  }
}

/**
 * Delivers everything due (as the in-process dispatcher would) and lets the integration work its queue, until
 * both are idle. `work` returns how many events it handled.
 */
export async function settle(api: TestApi, work: () => Promise<number>): Promise<void> {
  for (let round = 0; round < 20; round++) {
    let delivered = 0;
    for (let due = -1; due !== 0; ) {
      due = await dispatchDue(api.db, api.platform.webhooks);
      delivered += due;
    }
    const worked = await work();
    if (delivered === 0 && worked === 0) return;
  }
  throw new Error('the sync loop did not settle');
}

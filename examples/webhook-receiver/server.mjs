#!/usr/bin/env node
// A webhook endpoint for trying the API's webhooks locally: it verifies each delivery's signature with
// `standardwebhooks` (the library the API reference names), answers at once and prints what arrived.
//   WEBHOOK_SECRET=whsec_… node examples/webhook-receiver/server.mjs [--port 4000] [--host 127.0.0.1]
// It prints "Webhook receiver: http://<host>:<port>/hook" once it listens. Node 20+, one package (standardwebhooks).
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PORT ?? '4000' },
    host: { type: 'string', default: process.env.HOST ?? '127.0.0.1' },
  },
});
const secret = process.env.WEBHOOK_SECRET ?? '';
if (!secret.startsWith('whsec_')) {
  console.error('Set WEBHOOK_SECRET to the subscription\'s signing secret (whsec_…), printed once by "webhooks create".');
  process.exit(2);
}
// Verifies the HMAC of "<webhook-id>.<webhook-timestamp>.<body>" and refuses timestamps over 5 minutes off.
const webhook = new Webhook(secret);
// Deliveries are at least once: the same event (webhook-id) may come again; a real integration keeps this in its store.
const seen = new Set();

// An event is a few hundred bytes (ids and references only); nothing larger is kept in memory.
const maxBody = 256 * 1024;

/** The raw body, or undefined when it is over maxBody (the rest is read and dropped). */
function readBody(req) {
  return new Promise((resolve, reject) => {
    let body = '';
    let size = 0;
    req.setEncoding('utf8');
    req.on('data', (chunk) => {
      size += Buffer.byteLength(chunk);
      if (size <= maxBody) body += chunk;
    });
    req.on('end', () => resolve(size <= maxBody ? body : undefined));
    req.on('error', reject);
  });
}

const server = createServer(async (req, res) => {
  if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://receiver').pathname !== '/hook') {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('POST /hook only\n');
    return;
  }
  const body = await readBody(req); // the raw body: re-serialised JSON would not verify
  if (body === undefined) {
    console.log(`refused: a body over ${maxBody} bytes`);
    res.writeHead(413, { 'Content-Type': 'text/plain; charset=utf-8' }).end('body too large\n');
    return;
  }
  let event;
  try {
    event = webhook.verify(body, req.headers);
  } catch (error) {
    console.log(`refused: ${error instanceof Error ? error.message : String(error)}`);
    res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' }).end('invalid signature\n');
    return;
  }
  // Answer within the API's 15 s, then work: events are thin, so read the record with a server key if needed.
  res.writeHead(204).end();
  if (seen.has(event.id)) {
    console.log(`duplicate ${event.id} (already handled)`);
    return;
  }
  seen.add(event.id);
  console.log(`verified ${event.type} ${event.id} caused_by=${event.caused_by} data=${JSON.stringify(event.data)}`);
});

server.listen(Number(values.port), values.host, () => {
  const { port } = server.address();
  console.log(`Webhook receiver: http://${values.host}:${port}/hook`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));

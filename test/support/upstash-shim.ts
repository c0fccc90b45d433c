/**
 * Test-support server: speaks the Upstash Redis REST protocol over loopback
 * HTTP and forwards every command to a real Redis, so `@upstash/redis` and
 * `@upstash/ratelimit` can be exercised end to end without the cloud service.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';

export interface UpstashShim {
  url: string;
  token: string;
  close(): Promise<void>;
}

type Reply = Buffer | string | number | null | Error | Reply[];
type Json = string | number | null | Json[];
type Entry = { result: Json } | { error: string };

/** Flags Redis 7.0 does not know; @upstash/ratelimit 2.x adds them to every script. */
const UNSUPPORTED_SHEBANG_FLAGS = new Set(['allow-key-locking']);

/** Commands that would change state of the single shared connection for every caller. */
const CONNECTION_STATE_COMMANDS = new Set([
  'select',
  'multi',
  'exec',
  'discard',
  'watch',
  'unwatch',
  'subscribe',
  'psubscribe',
  'ssubscribe',
  'monitor',
  'quit',
  'reset',
  'hello',
  'auth',
  'client',
]);

const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

export async function startUpstashShim(opts: { redisUrl?: string; token?: string } = {}): Promise<UpstashShim> {
  const token = opts.token ?? randomUUID();
  const redis = new Redis(opts.redisUrl ?? 'redis://127.0.0.1:6379', {
    lazyConnect: true,
  });
  await redis.connect();

  // Client-side sha1 (of the script text as sent, shebang included) -> sha1 Redis knows.
  const scriptHashes = new Map<string, string>();

  /** Drops unsupported shebang flags; returns the script unchanged when there are none. */
  function stripShebang(script: string): string {
    const match = /^#!lua(?:[ \t]+flags=([^\r\n]*))?[ \t]*(\r?\n|$)/.exec(script);
    if (!match) return script;
    const flags = (match[1] ?? '')
      .split(',')
      .map((f) => f.trim())
      .filter(Boolean);
    const kept = flags.filter((f) => !UNSUPPORTED_SHEBANG_FLAGS.has(f));
    if (kept.length === flags.length) return script;
    const body = script.slice(match[0].length);
    // No flags left: drop the whole line so the script runs in legacy (pre-7.0) mode.
    return kept.length > 0 ? `#!lua flags=${kept.join(',')}\n${body}` : body;
  }

  /** Rewrites script-related commands so Redis 7.0 accepts them and client hashes resolve. */
  function rewrite(args: string[]): string[] {
    const name = (args[0] ?? '').toLowerCase();
    if ((name === 'eval' || name === 'eval_ro') && args[1] !== undefined) {
      const stripped = stripShebang(args[1]);
      if (stripped !== args[1]) scriptHashes.set(sha1(args[1]), sha1(stripped));
      return [args[0] as string, stripped, ...args.slice(2)];
    }
    if ((name === 'evalsha' || name === 'evalsha_ro') && args[1] !== undefined) {
      return [args[0] as string, scriptHashes.get(args[1].toLowerCase()) ?? args[1], ...args.slice(2)];
    }
    if (name === 'script' && args[1]?.toLowerCase() === 'load' && args[2] !== undefined) {
      return [args[0] as string, args[1], stripShebang(args[2])];
    }
    if (name === 'script' && args[1]?.toLowerCase() === 'exists') {
      return [...args.slice(0, 2), ...args.slice(2).map((h) => scriptHashes.get(h.toLowerCase()) ?? h)];
    }
    return args;
  }

  /** SCRIPT LOAD must answer with the hash the client computed, not the stripped one. */
  function afterScriptLoad(original: string[], reply: Reply): Reply {
    const isLoad = original[0]?.toLowerCase() === 'script' && original[1]?.toLowerCase() === 'load';
    if (!isLoad || original[2] === undefined || !Buffer.isBuffer(reply)) return reply;
    const clientHash = sha1(original[2]);
    scriptHashes.set(clientHash, reply.toString());
    return clientHash;
  }

  function encode(reply: Reply, base64: boolean): Json {
    if (reply === null || typeof reply === 'number') return reply;
    if (reply instanceof Error) return reply.message;
    if (Array.isArray(reply)) return reply.map((r) => encode(r, base64));
    const buf = Buffer.isBuffer(reply) ? reply : Buffer.from(reply);
    const text = buf.toString('utf8');
    // @upstash/redis leaves a bare "OK" undecoded (Upstash sends status replies raw).
    if (!base64 || text === 'OK') return text;
    return buf.toString('base64');
  }

  /** Validates one command from the body and turns its arguments into strings. */
  function parseCommand(raw: unknown): string[] {
    if (!Array.isArray(raw) || raw.length === 0) throw new Error('ERR command must be a non-empty array');
    const args = raw.map((a: unknown) => {
      if (typeof a === 'string') return a;
      if (typeof a === 'number' || typeof a === 'boolean') return String(a);
      if (a === null) return 'null';
      throw new Error('ERR command arguments must be strings, numbers or booleans');
    });
    if (CONNECTION_STATE_COMMANDS.has((args[0] as string).toLowerCase())) {
      throw new Error(`ERR command '${args[0]}' is not supported by the Upstash shim`);
    }
    return args;
  }

  const toEntry = (err: Error | null, reply: Reply, original: string[], base64: boolean): Entry =>
    err ? { error: err.message } : { result: encode(afterScriptLoad(original, reply), base64) };

  async function runOne(raw: unknown, base64: boolean): Promise<Entry> {
    try {
      const args = parseCommand(raw);
      const [name, ...rest] = rewrite(args);
      const reply = (await redis.callBuffer(name as string, ...rest)) as Reply;
      return toEntry(null, reply, args, base64);
    } catch (err) {
      return { error: (err as Error).message };
    }
  }

  async function runBatch(raw: unknown, base64: boolean, atomic: boolean): Promise<Entry[] | { error: string }> {
    if (!Array.isArray(raw) || raw.length === 0) return { error: 'ERR body must be a non-empty array of commands' };
    let commands: string[][];
    try {
      commands = raw.map(parseCommand);
    } catch (err) {
      return { error: (err as Error).message };
    }
    // ioredis writes a pipeline/multi in one go, so other requests cannot interleave inside it.
    const batch = atomic ? redis.multi() : redis.pipeline();
    for (const args of commands) {
      const [name, ...rest] = rewrite(args);
      batch.callBuffer(name as string, ...rest);
    }
    try {
      const results = (await batch.exec()) ?? [];
      return results.map(([err, reply], i) => toEntry(err, reply as Reply, commands[i] ?? [], base64));
    } catch (err) {
      // EXECABORT (a command was rejected while queuing) fails the whole transaction.
      return { error: (err as Error).message };
    }
  }

  async function readJson(req: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  }

  function send(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.headers.authorization !== `Bearer ${token}`) {
      return send(res, 401, { error: 'Unauthorized' });
    }
    const path = new URL(req.url ?? '/', 'http://shim').pathname.replace(/\/+$/, '') || '/';
    if (req.method !== 'POST') return send(res, 405, { error: 'ERR only POST is supported' });
    if (path !== '/' && path !== '/pipeline' && path !== '/multi-exec') {
      return send(res, 404, { error: `ERR unknown endpoint ${path}` });
    }
    let body: unknown;
    try {
      body = await readJson(req);
    } catch {
      return send(res, 400, { error: 'ERR request body is not valid JSON' });
    }
    const base64 = String(req.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';
    if (path === '/') {
      const entry = await runOne(body, base64);
      return send(res, 'error' in entry ? 400 : 200, entry);
    }
    const entries = await runBatch(body, base64, path === '/multi-exec');
    return send(res, Array.isArray(entries) ? 200 : 400, entries);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent)
        send(res, 500, {
          error: `ERR shim failure: ${(err as Error).message}`,
        });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    async close() {
      // fetch keeps connections alive; without this server.close() would wait for them.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await redis.quit();
    },
  };
}

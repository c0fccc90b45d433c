import type { RateDecision, RateLimiter, RatePolicy } from './index';

/**
 * The sliding window of ./memory.ts kept in Upstash Redis, shared across Worker isolates and regions: one script
 * per request (EVALSHA, or EVAL the first time Redis has not seen it) over Upstash's REST API with fetch. Two
 * counters per identifier, the current window's and the previous one's, weighted as in memory.
 *
 * Written here rather than with @upstash/ratelimit on @upstash/redis: those two weigh about 31 KiB gzipped in
 * every Worker's bundle (the catalogue Worker's budget is 200 KiB), for the two commands this limiter sends.
 */
const script = `local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local previous = tonumber(redis.call('GET', KEYS[2]) or '0')
local used = math.floor(previous * tonumber(ARGV[2])) + current
if used >= tonumber(ARGV[1]) then return {0, used} end
redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, used}`;

let scriptHash: Promise<string> | undefined;
function hashOfScript(): Promise<string> {
  scriptHash ??= crypto.subtle
    .digest('SHA-1', new TextEncoder().encode(script))
    .then((digest) => Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join(''));
  return scriptHash;
}

/** A limiter that does not answer within this time lets the request through (as @upstash/ratelimit did). */
const timeoutMs = 5000;

export class UpstashRateLimiter implements RateLimiter {
  readonly #url: string;
  readonly #token: string;
  readonly #prefix: string;
  readonly #now: () => number;

  constructor(options: { url: string; token: string; prefix?: string; now?: () => number }) {
    this.#url = options.url;
    this.#token = options.token;
    this.#prefix = options.prefix ?? 'ratelimit';
    this.#now = options.now ?? Date.now;
  }

  async limit(policy: RatePolicy, identifier: string): Promise<RateDecision> {
    const now = this.#now();
    const size = policy.windowSeconds * 1000;
    const start = Math.floor(now / size) * size;
    const key = `${this.#prefix}:${policy.name}:${identifier}`;
    const overlap = 1 - (now - start) / size;
    // KEYS: this window's counter and the previous one's; ARGV: the limit, the previous window's weight, the expiry.
    const keysAndArgs = [2, `${key}:${start}`, `${key}:${start - size}`, policy.limit, overlap, 2 * size + 1000];
    let reply: unknown;
    try {
      reply = await this.#evaluate(keysAndArgs, AbortSignal.timeout(timeoutMs));
    } catch (error) {
      if (error instanceof DOMException && error.name === 'TimeoutError') {
        return { success: true, limit: policy.limit, remaining: 0, reset: now };
      }
      throw error;
    }
    const [allowed, used] = reply as [number, number];
    const success = allowed === 1;
    return {
      success,
      limit: policy.limit,
      remaining: Math.max(0, policy.limit - used - (success ? 1 : 0)),
      reset: start + size,
    };
  }

  async #evaluate(keysAndArgs: Array<string | number>, signal: AbortSignal): Promise<unknown> {
    try {
      return await this.#command(['EVALSHA', await hashOfScript(), ...keysAndArgs], signal);
    } catch (error) {
      if (!String(error).includes('NOSCRIPT')) throw error;
      return this.#command(['EVAL', script, ...keysAndArgs], signal);
    }
  }

  /** One command as Upstash's REST API takes it: a JSON array, answered `{ result }` or `{ error }`. */
  async #command(command: Array<string | number>, signal: AbortSignal): Promise<unknown> {
    const response = await fetch(this.#url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${this.#token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(command),
      signal,
    });
    const body = (await response.json().catch(() => ({}))) as { result?: unknown; error?: string };
    if (!response.ok || body.error !== undefined) {
      throw new Error(`Upstash answered ${response.status}: ${body.error ?? 'no result'}`);
    }
    return body.result;
  }
}

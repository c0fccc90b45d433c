import { createHash, randomUUID } from 'node:crypto';
import { Ratelimit } from '@upstash/ratelimit';
import { Redis as UpstashRedis } from '@upstash/redis';
import { Redis as IORedis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstashShim, type UpstashShim } from './upstash-shim';

describe('upstash-shim', () => {
  let shim: UpstashShim;
  let direct: IORedis;
  // Every key this file touches lives under this prefix, removed in afterAll.
  const prefix = `test:upstash-shim:${randomUUID()}`;

  const client = (encoding?: false): UpstashRedis =>
    new UpstashRedis({
      url: shim.url,
      token: shim.token,
      enableTelemetry: false,
      // A refused request should fail the test at once, not after back-off retries.
      retry: false,
      ...(encoding === false ? { responseEncoding: false } : {}),
    });

  beforeAll(async () => {
    shim = await startUpstashShim();
    direct = new IORedis('redis://127.0.0.1:6379');
  });

  afterAll(async () => {
    const keys = await direct.keys(`${prefix}*`);
    if (keys.length > 0) await direct.del(...keys);
    direct.disconnect();
    await shim.close();
  });

  it('runs single commands and pipelines, with and without base64 encoding', async () => {
    for (const redis of [client(), client(false)]) {
      const key = `${prefix}:kv:${randomUUID()}`;
      expect(await redis.set(key, 'héllo ✓')).toBe('OK');
      expect(await redis.get(key)).toBe('héllo ✓');
      expect(await redis.incr(`${key}:n`)).toBe(1);
      expect(await redis.get(`${key}:missing`)).toBeNull();

      const p = redis.pipeline();
      p.set(`${key}:p`, 'v');
      p.incrby(`${key}:n`, 5);
      p.mget(key, `${key}:p`, `${key}:missing`);
      expect(await p.exec()).toEqual(['OK', 6, ['héllo ✓', 'v', null]]);

      const tx = redis.multi();
      tx.incr(`${key}:n`);
      tx.get(`${key}:p`);
      expect(await tx.exec()).toEqual([7, 'v']);
    }
  });

  it('base64-encodes strings (also nested) on the wire when asked, but not numbers or null', async () => {
    const key = `${prefix}:wire`;
    await direct.set(key, 'abc');
    const res = await fetch(`${shim.url}/pipeline`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${shim.token}`,
        'upstash-encoding': 'base64',
      },
      body: JSON.stringify([
        ['get', key],
        ['mget', key, `${key}:none`],
        ['strlen', key],
        ['set', key, 'x'],
      ]),
    });
    expect(await res.json()).toEqual([{ result: 'YWJj' }, { result: ['YWJj', null] }, { result: 3 }, { result: 'OK' }]);
  });

  it('reports Redis errors as {error} with status 400', async () => {
    const res = await fetch(shim.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${shim.token}` },
      body: JSON.stringify(['incr']),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/wrong number of arguments/);
  });

  it('loads shebang scripts under the client-side hash and rejects unknown hashes with NOSCRIPT', async () => {
    const redis = client();
    const script = `#!lua flags=allow-key-locking\nreturn redis.call('INCR', KEYS[1])`;
    const hash = await redis.scriptLoad(script);
    expect(hash).toBe(createHash('sha1').update(script).digest('hex'));
    expect(await redis.evalsha(hash, [`${prefix}:script`], [])).toBe(1);
    await expect(redis.evalsha('0'.repeat(40), [], [])).rejects.toThrow(/NOSCRIPT/);
  });

  it('supports @upstash/ratelimit sliding window', async () => {
    const ratelimit = new Ratelimit({
      redis: client(),
      limiter: Ratelimit.slidingWindow(3, '10 s'),
      prefix: `${prefix}:sliding`,
      ephemeralCache: false,
    });
    const id = 'user-1';
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await ratelimit.limit(id));
    expect(results.map((r) => r.success)).toEqual([true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([2, 1, 0, 0]);
    expect((await ratelimit.getRemaining(id)).remaining).toBe(0);
    await ratelimit.resetUsedTokens(id);
    // resetUsedTokens does not await its script, so poll until the keys are gone.
    await expect.poll(async () => (await ratelimit.getRemaining(id)).remaining).toBe(3);
  });

  it.each([
    ['fixed window', Ratelimit.fixedWindow(2, '10 s')],
    ['token bucket', Ratelimit.tokenBucket(1, '10 s', 2)],
  ])('supports @upstash/ratelimit %s', async (name, limiter) => {
    const ratelimit = new Ratelimit({
      redis: client(),
      limiter,
      prefix: `${prefix}:${name.replace(' ', '-')}`,
      ephemeralCache: false,
    });
    const id = 'user-1';
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await ratelimit.limit(id));
    expect(results.map((r) => r.success)).toEqual([true, true, false]);
    expect((await ratelimit.getRemaining(id)).remaining).toBe(0);
    await ratelimit.resetUsedTokens(id);
    await expect.poll(async () => (await ratelimit.getRemaining(id)).remaining).toBe(2);
  });

  it('refuses a wrong token with 401', async () => {
    const wrong = new UpstashRedis({
      url: shim.url,
      token: 'wrong',
      enableTelemetry: false,
      retry: false,
    });
    await expect(wrong.get(`${prefix}:x`)).rejects.toThrow(/Unauthorized/);
    const res = await fetch(shim.url, {
      method: 'POST',
      body: JSON.stringify(['ping']),
    });
    expect(res.status).toBe(401);
  });
});

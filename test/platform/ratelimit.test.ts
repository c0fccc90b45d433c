import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryRateLimiter } from '../../lib/ratelimit/memory';
import { UpstashRateLimiter } from '../../lib/ratelimit/upstash';
import type { RateLimiter } from '../../lib/ratelimit/index';
import { randomToken } from '../../lib/crypto';
import { createTestApi, openTestDatabase, type TestApi } from '../support/harness';
import { startUpstashShim } from '../support/upstash-shim';
import type { DatabaseHandle } from '../../lib/db/index';
import { createKey, demoCompany } from '../support/world';

const limits = { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '3', RATE_LIMIT_SERVER_KEY_PER_MINUTE: '4' };

let shim: Awaited<ReturnType<typeof startUpstashShim>>;
let handle: DatabaseHandle;

beforeAll(async () => {
  shim = await startUpstashShim();
  handle = await openTestDatabase();
});
afterAll(async () => {
  await shim.close();
  await handle.close();
});

/** The same behaviour from both adapters: in memory, and @upstash/ratelimit on the real Redis through the shim. */
const adapters: Array<[string, () => RateLimiter]> = [
  ['memory', () => new MemoryRateLimiter()],
  ['upstash', () => new UpstashRateLimiter({ url: shim.url, token: shim.token, prefix: `test-${randomToken(8)}` })],
];

describe.each(adapters)('rate limits with the %s adapter', (_name, makeLimiter) => {
  let api: TestApi;
  let company: { id: string; host: string };

  beforeAll(async () => {
    api = await createTestApi({ env: limits, limiter: makeLimiter(), handle });
    company = await demoCompany(api);
    // Time is an input: the windows are aligned to the minute (Upstash weighs the previous minute's requests by
    // how much of it is still in the window), so the requests below are made at one instant in the middle of a
    // minute. Made across a minute's end, part of them would count for less and a fifth request could pass.
    vi.useFakeTimers({ toFake: ['Date'], now: Math.floor(Date.now() / 60_000) * 60_000 + 30_000 });
  });
  afterAll(() => {
    vi.useRealTimers();
  });

  // raw: the transport itself (the client's address, keys sent or not, the RateLimit headers), not the operation
  const get = (o: { key?: string; clientAddress?: string } = {}) => api.request('/api/v1/areas', { host: company.host, ...o });

  it('limits anonymous reads per client address with 429, Retry-After and RateLimit headers', async () => {
    const address = `198.51.100.${Math.floor(Math.random() * 250)}`;
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof get>> | undefined;
    for (let i = 0; i < 4; i++) {
      last = await get({ clientAddress: address });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last?.json.code).toBe('rate_limited');
    expect(last?.headers.get('content-type')).toBe('application/problem+json');
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(last?.headers.get('ratelimit-policy')).toBe('"anonymous";q=3;w=60');
    expect(last?.headers.get('ratelimit')).toMatch(/^"anonymous";r=0;t=\d+$/);
    // Another address has its own allowance.
    expect((await get({ clientAddress: `203.0.113.${Math.floor(Math.random() * 250)}` })).status).toBe(200);
  });

  it('limits a read:listings key per key, whatever the address', async () => {
    const { secret } = await createKey(api, company.id, { scopes: ['read:listings'] });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await get({ key: secret, clientAddress: `192.0.2.${i + 10}` })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    // A second key is not affected by the first one's use.
    const other = await createKey(api, company.id, { scopes: ['read:listings'] });
    const ok = await get({ key: other.secret });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('ratelimit')).toMatch(/^"server_key";r=3;t=\d+$/);
  });

  it('refuses a wrong key before counting anything', async () => {
    const address = `198.18.0.${Math.floor(Math.random() * 250)}`;
    for (let i = 0; i < 6; i++) {
      const res = await get({ key: `sk_${randomToken(42)}`, clientAddress: address });
      expect(res.status).toBe(403);
    }
    // The address still has its whole anonymous allowance.
    const ok = await get({ clientAddress: address });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('ratelimit')).toMatch(/^"anonymous";r=2;t=\d+$/);
  });
});

describe('the in-memory sliding window', () => {
  it('frees the allowance as the window slides', async () => {
    let now = 1_000_000_000_000;
    const limiter = new MemoryRateLimiter(() => now);
    const policy = { name: 'p', limit: 2, windowSeconds: 10 };
    expect((await limiter.limit(policy, 'a')).success).toBe(true);
    expect((await limiter.limit(policy, 'a')).success).toBe(true);
    expect((await limiter.limit(policy, 'a')).success).toBe(false);
    now += 20_000;
    expect((await limiter.limit(policy, 'a')).success).toBe(true);
  });
});

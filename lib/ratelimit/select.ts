import type { Config } from '../config';
import type { RateLimiter } from './index';
import { MemoryRateLimiter } from './memory';
import { UpstashRateLimiter } from './upstash';

/** Upstash when UPSTASH_REDIS_REST_URL is configured; otherwise the in-memory limiter. */
export function limiterFor(config: Config): RateLimiter {
  if (config.UPSTASH_REDIS_REST_URL) {
    return new UpstashRateLimiter({ url: config.UPSTASH_REDIS_REST_URL, token: config.UPSTASH_REDIS_REST_TOKEN ?? '' });
  }
  return new MemoryRateLimiter();
}

import { Ratelimit } from '@upstash/ratelimit';
import { Redis } from '@upstash/redis';
import type { RateDecision, RateLimiter, RatePolicy } from './index';

/** @upstash/ratelimit on @upstash/redis: shared across Worker isolates and regions. */
export class UpstashRateLimiter implements RateLimiter {
  readonly #redis: Redis;
  readonly #limiters = new Map<string, Ratelimit>();
  readonly #prefix: string;

  constructor(options: { url: string; token: string; prefix?: string }) {
    this.#redis = new Redis({ url: options.url, token: options.token });
    this.#prefix = options.prefix ?? 'ratelimit';
  }

  async limit(policy: RatePolicy, identifier: string): Promise<RateDecision> {
    const id = `${policy.name}:${policy.limit}:${policy.windowSeconds}`;
    let limiter = this.#limiters.get(id);
    if (!limiter) {
      limiter = new Ratelimit({
        redis: this.#redis,
        limiter: Ratelimit.slidingWindow(policy.limit, `${policy.windowSeconds} s`),
        prefix: `${this.#prefix}:${policy.name}`,
        analytics: false,
      });
      this.#limiters.set(id, limiter);
    }
    const { success, limit, remaining, reset } = await limiter.limit(identifier);
    return { success, limit, remaining, reset };
  }
}

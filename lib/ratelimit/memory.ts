import { systemMillis } from '../clock';
import type { RateDecision, RateLimiter, RatePolicy } from './index';

/**
 * Sliding-window limiter in process memory (the same approximation @upstash/ratelimit's slidingWindow
 * uses: the previous window's count weighted by how much of it still overlaps).
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly #windows = new Map<string, { start: number; current: number; previous: number }>();
  readonly #now: () => number;

  constructor(now: () => number = systemMillis) {
    this.#now = now;
  }

  async limit(policy: RatePolicy, identifier: string): Promise<RateDecision> {
    const now = this.#now();
    const size = policy.windowSeconds * 1000;
    const start = Math.floor(now / size) * size;
    const key = `${policy.name}:${identifier}`;
    let entry = this.#windows.get(key);
    if (!entry) {
      entry = { start, current: 0, previous: 0 };
      this.#windows.set(key, entry);
      if (this.#windows.size > 100_000) this.#sweep(start - size);
    } else if (entry.start < start) {
      // A new window: the last one's count weighs on it only if it was the window just before.
      entry.previous = entry.start < start - size ? 0 : entry.current;
      entry.current = 0;
      entry.start = start;
    }
    const overlap = 1 - (now - start) / size;
    const used = Math.floor(entry.previous * overlap) + entry.current;
    const success = used < policy.limit;
    if (success) entry.current += 1;
    return {
      success,
      limit: policy.limit,
      remaining: Math.max(0, policy.limit - used - (success ? 1 : 0)),
      reset: start + size,
    };
  }

  /** Forget windows that can no longer count, so memory stays bounded under many addresses. */
  #sweep(before: number): void {
    for (const [key, entry] of this.#windows) if (entry.start < before) this.#windows.delete(key);
  }
}

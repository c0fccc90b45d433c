import { systemMillis } from '../clock';
/** A named limit: at most `limit` requests per `windowSeconds` for one identifier. */
export type RatePolicy = { name: string; limit: number; windowSeconds: number };

export type RateDecision = {
  success: boolean;
  limit: number;
  remaining: number;
  /** Epoch milliseconds when the window frees up again. */
  reset: number;
};

/** One interface, two adapters: in-memory (embedded default) and Upstash Redis (production). */
export interface RateLimiter {
  limit(policy: RatePolicy, identifier: string): Promise<RateDecision>;
}

/** RateLimit-Policy / RateLimit headers (IETF httpapi-ratelimit-headers) and Retry-After when refused. */
/** `now`: the limiter's clock (the real one: a window is an interval measured by lib/clock.ts, not the services' instant). */
export function rateLimitHeaders(policy: RatePolicy, decision: RateDecision, now = systemMillis()): Record<string, string> {
  const resetSeconds = Math.max(0, Math.ceil((decision.reset - now) / 1000));
  const headers: Record<string, string> = {
    'RateLimit-Policy': `"${policy.name}";q=${policy.limit};w=${policy.windowSeconds}`,
    RateLimit: `"${policy.name}";r=${Math.max(0, decision.remaining)};t=${resetSeconds}`,
  };
  if (!decision.success) headers['Retry-After'] = String(Math.max(1, resetSeconds));
  return headers;
}

/**
 * Stands in for @upstash/core-analytics in the Workers' bundles (wrangler.jsonc `alias`): @upstash/ratelimit creates
 * its Analytics only with `analytics: true`, and lib/ratelimit/upstash.ts always passes `analytics: false`.
 */
export class Analytics {
  constructor() {
    throw new Error('Rate-limit analytics are not bundled into the Workers (lib/stubs/upstash-analytics.ts).');
  }
}

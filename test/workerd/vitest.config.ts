import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The built Workers (dist/worker, dist/worker-catalogue) in workerd via Miniflare, against the local
 * PostgreSQL through the Neon driver. Run with `npm run test:workerd`, which builds the bundles first.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/workerd/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});

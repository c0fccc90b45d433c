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
    // One migrated database per run, each file's a copy of it.
    globalSetup: ['test/workerd/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // The files share one test process's loaded modules (each still starts its own workerd on its own database): the
    // module graph is imported once, not once per file (about 2.5 s a file), as in vitest.config.ts.
    isolate: false,
  },
});

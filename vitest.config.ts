import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/workerd/**', 'node_modules/**'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Test files share each worker's loaded modules (each still opens its own database and companies): the
    // module graph is imported once per worker instead of once per file, half of the suite's CPU time.
    isolate: false,
  },
});

import { defineConfig } from 'vitest/config';
import { databaseFreeTests } from './test/support/database-free.ts';
import { databaseFreeElsewhere, sourceBuildTests } from './test/support/passes.ts';

// The files it imports name theirs with `.ts`, as Vite's native config loader wants (nothing else needs to).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // CI's PostgreSQL pass leaves out the files that cannot touch a database and those that build a package in the
    // source tree: the PGlite pass beside it runs them (test/support/passes.ts).
    exclude: [
      'test/workerd/**',
      'node_modules/**',
      ...(databaseFreeElsewhere ? [...databaseFreeTests(process.cwd()), ...sourceBuildTests] : []),
    ],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Test files share each worker's loaded modules (each still opens its own database and companies): the
    // module graph is imported once per worker instead of once per file, half of the suite's CPU time.
    isolate: false,
  },
});

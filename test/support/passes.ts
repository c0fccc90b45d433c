/**
 * CI runs `npm test` twice side by side (.ci/run): on PGlite, and on a fresh database of the PostgreSQL server
 * (DATABASE_URL). Two kinds of test file are the same test in both passes, and CI runs each of them once:
 *
 * - A test of the Node server on a data folder of its own (it starts `npm start` or the admin CLI with DATABASE_URL
 *   removed, so the database under test plays no part), or of a PGlite of its own moved to a database of its own on
 *   the server (test/e2e/move-to-postgres). CI says so with SPAWNED_SERVERS_IN_POSTGRES_PASS=1, and such a test then
 *   runs in the PostgreSQL pass only (`spawnedServersHere`).
 * - A file that cannot touch a database at all (pure functions, formats, the layout of the tree), as judged by what
 *   it imports (test/support/database-free.ts: anything the scan does not know keeps a file in both passes). CI says
 *   so with DATABASE_FREE_IN_PGLITE_PASS=1, and vitest.config.ts then leaves these files out of the PostgreSQL pass
 *   (`databaseFreeElsewhere`); the PGlite pass runs them.
 *
 * A third kind runs in one pass because two cannot run it at once: a test that builds a package in the source tree
 * (`sourceBuildTests`: the client package's `npm pack` empties and rebuilds clients/typescript/dist), which the two
 * passes side by side would build into the same folder together. With DATABASE_FREE_IN_PGLITE_PASS=1 the PostgreSQL
 * pass leaves it out too, and the PGlite pass runs it.
 *
 * The two go to different passes, which keeps the passes' lengths near each other (side by side on two cores:
 * docs/performance.md, "The test suite's time"). Without these settings (`npm test` on its own, on either database)
 * every file runs.
 */
export const spawnedServersHere = Boolean(process.env.DATABASE_URL) || process.env.SPAWNED_SERVERS_IN_POSTGRES_PASS !== '1';

/** This run is CI's PostgreSQL pass, and the PGlite pass beside it runs the files that cannot touch a database. */
export const databaseFreeElsewhere = Boolean(process.env.DATABASE_URL) && process.env.DATABASE_FREE_IN_PGLITE_PASS === '1';

/** The test files that build a package in the source tree: CI runs them in its PGlite pass alone (above). */
export const sourceBuildTests = ['test/clients/package.test.ts'];

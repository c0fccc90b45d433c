/**
 * CI runs `npm test` twice side by side (.ci/run): on PGlite, and on a fresh database of the PostgreSQL server
 * (DATABASE_URL). A test of the Node server on a data folder of its own (it starts `npm start` or the admin CLI with
 * DATABASE_URL removed, so the database under test plays no part) is the same test in both passes; CI says so with
 * SPAWNED_SERVERS_IN_POSTGRES_PASS=1, and such a test then runs in the PostgreSQL pass only, which balances the two
 * passes' lengths (side by side on two cores, 618.9 and 595.6 s at 0bc74bd: docs/performance.md). Without that setting (`npm test` on its
 * own, on either database) it runs.
 */
export const spawnedServersHere = Boolean(process.env.DATABASE_URL) || process.env.SPAWNED_SERVERS_IN_POSTGRES_PASS !== '1';

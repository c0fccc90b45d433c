import { Hono } from 'hono';
import { sql } from 'kysely';
import type { AppEnv, ServicesProvider } from './env';
import { ApiError } from './errors';

/**
 * The newest migration this code needs (migrations/NNNN_name.sql): readiness asks the database whether it applied it.
 * A Worker has no migrations folder to read, so the name is written here; test/platform/health.test.ts fails when it
 * is not the folder's last file (add a migration: put its name here).
 */
export const expectedMigration = '0068_inbound_channels_notify';

const noStore = { 'Cache-Control': 'no-store' };

/**
 * Health checks for load balancers and uptime monitors, on every host (no company is looked up), with no key and
 * outside the rate limits, on the Node server and on every Worker (lib/app.ts mounts them ahead of everything else):
 *
 * - `GET /health`: liveness. The process answers; nothing is opened (no database, no services).
 * - `GET /health/ready`: readiness. The database answers and has applied {@link expectedMigration}: 200, or 503
 *   `not_ready` (application/problem+json) saying which check failed. A Worker opens its pool for it as a request does.
 *   The answer also says whether outbound work runs or is paused (`outbound`): a paused copy serves requests, so it
 *   is ready; the operator sees there that its webhooks and imports wait.
 */
export function healthRoutes(provide: ServicesProvider): Hono<AppEnv> {
  const health = new Hono<AppEnv>();
  health.get('/health', (c) => c.json({ status: 'ok' }, 200, noStore));
  health.get('/health/ready', async (c) => {
    let provided: Awaited<ReturnType<ServicesProvider>>;
    try {
      provided = await provide(c);
    } catch (error) {
      throw notReady(`The database is not configured: ${(error as Error).message}`);
    }
    try {
      // One statement: the migration, and whether outbound work is paused (a copy of the database: lib/outbound.ts).
      const migration = await sql<{ name: string; paused: boolean }>`
        select name, exists (select 1 from outbound_pause) as paused from kysely_migration where name = ${expectedMigration}`
        .execute(provided.services.db)
        .then(
          (result) => result.rows[0],
          (error: unknown) => {
            // 42P01: no migration table yet (an empty database), or no outbound_pause (before 0029): not migrated.
            if ((error as { code?: unknown }).code === '42P01') return undefined;
            throw notReady(`The database cannot be reached: ${(error as Error).message}`);
          },
        );
      if (!migration) throw notReady(`The database has not applied migration ${expectedMigration}: run npm run migrate.`);
      const outbound = migration.paused ? 'paused' : 'running';
      return c.json({ status: 'ready', database: 'reachable', migration: expectedMigration, outbound }, 200, noStore);
    } finally {
      await provided.done?.().catch(() => {});
    }
  });
  return health;
}

function notReady(detail: string): ApiError {
  return new ApiError('not_ready', detail, { headers: noStore });
}

import { sql } from 'kysely';
import { openNeon, useNeonProxy } from '../lib/db/neon';

/**
 * The edge bench's database floors (bench/edge.ts): a Worker that opens the database as the API's Workers do for a
 * public read (lib/db/neon.ts: one `select 1` through Kysely, over HTTP), and closes it; run with `NEON_HTTP_PROXY`
 * empty, the same statement goes through a Neon pool (its WebSocket opened and closed per request), as a write's do.
 * What a route costs beyond them is the route's own work.
 */
export default {
  async fetch(
    _request: Request,
    env: { DATABASE_URL: string; NEON_WS_PROXY?: string; NEON_HTTP_PROXY?: string },
  ): Promise<Response> {
    if (env.NEON_WS_PROXY) useNeonProxy(env.NEON_WS_PROXY, env.NEON_HTTP_PROXY);
    const handle = openNeon(env.DATABASE_URL, { readsOverHttp: true });
    try {
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(handle.db);
      return new Response(String(rows[0]?.one));
    } finally {
      await handle.close();
    }
  },
};

import { sql } from 'kysely';
import { openNeon, useNeonProxy } from '../lib/db/neon';

/**
 * The edge bench's database floor (bench/edge.ts): a Worker that opens the Neon pool as the API's Workers do (one per
 * request, lib/db/neon.ts), sends one `select 1` through Kysely, and closes it. What a route costs beyond it is the
 * route's own work.
 */
export default {
  async fetch(_request: Request, env: { DATABASE_URL: string; NEON_WS_PROXY?: string }): Promise<Response> {
    if (env.NEON_WS_PROXY) useNeonProxy(env.NEON_WS_PROXY);
    const handle = openNeon(env.DATABASE_URL);
    try {
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(handle.db);
      return new Response(String(rows[0]?.one));
    } finally {
      await handle.close();
    }
  },
};

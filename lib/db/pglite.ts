import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { Kysely, type KyselyConfig } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import type { Database } from '../../schema/db';
import { type DatabaseHandle, dateOid, keepText } from './index';

/**
 * Embedded PostgreSQL (PGlite, WASM) for `npm start` and the tests. PGlite is one session in one process:
 * the dialect serialises Kysely's connections, and nothing else may open the same data folder.
 */
export async function openPGlite(
  options: { dataDir?: string; loadDataDir?: Blob | File; log?: KyselyConfig['log'] } = {},
): Promise<DatabaseHandle & { pglite: PGlite }> {
  // btree_gist: the bookings' exclusion constraint (migration 0006) compares a listing id beside the dates.
  const pglite = await PGlite.create({
    dataDir: options.dataDir,
    loadDataDir: options.loadDataDir,
    extensions: { btree_gist },
    parsers: { [dateOid]: keepText },
  });
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite), log: options.log });
  return {
    db,
    pglite,
    engine: 'pglite',
    // Migrations run inside the migrator's transaction; PGlite has a single session, so exec() joins it.
    runScript: async (_executor, script) => {
      await pglite.exec(script);
    },
    close: () => db.destroy(),
  };
}

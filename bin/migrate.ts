import { migrateToLatest } from '../lib/db/migrate';
import { readSqlMigrations } from '../lib/db/migrations-fs';
import { openDatabase } from '../lib/node/platform';

/** `npm run migrate`: applies pending migrations to DATABASE_URL, or to the PGlite data under DATA_DIR. */
const handle = await openDatabase(process.env);
try {
  const results = await migrateToLatest(handle, await readSqlMigrations());
  for (const r of results) console.log(`${r.status.padEnd(8)} ${r.migrationName}`);
  if (results.length === 0) console.log('Already up to date.');
} finally {
  await handle.close();
}

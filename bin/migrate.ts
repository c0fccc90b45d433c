import { parseArgs } from 'node:util';
import { issueAdminToken, registerAdminToken } from '../lib/admin-tokens';
import { migrateToLatest } from '../lib/db/migrate';
import { readSqlMigrations } from '../lib/db/migrations-fs';
import { ensureAdminToken, openDatabase } from '../lib/node/platform';

/**
 * `npm run migrate`: applies pending migrations to DATABASE_URL, or to the PGlite data under DATA_DIR. Then it
 * makes sure an operator can reach the admin API: against DATABASE_URL (a Workers + Neon deployment) it issues
 * the first admin token when there is none and prints it once (`--new-admin-token` issues one more); ADMIN_TOKEN,
 * when set, is registered instead; on PGlite the token is the Node server's own, in DATA_DIR/admin-token.
 */
const { values } = parseArgs({ options: { 'new-admin-token': { type: 'boolean' } } });
const env = process.env;
const handle = await openDatabase(env);
try {
  const results = await migrateToLatest(handle, await readSqlMigrations());
  for (const r of results) console.log(`${r.status.padEnd(8)} ${r.migrationName}`);
  if (results.length === 0) console.log('Already up to date.');
  if (env.ADMIN_TOKEN) {
    await registerAdminToken(handle.db, env.ADMIN_TOKEN);
    console.log('Admin token: the ADMIN_TOKEN environment variable (registered).');
  } else if (!env.DATABASE_URL) {
    console.log(`Admin token: in ${(await ensureAdminToken(handle, env)).source}.`);
  } else {
    const issued = await issueAdminToken(handle.db, { always: values['new-admin-token'] });
    if (issued.token) {
      console.log(`\nAdmin token (shown only this once; the database keeps its hash):\n\n  ${issued.token}\n`);
      console.log('Keep it in a password manager. With it, against a Worker whose ADMIN_API is "on":');
      console.log('  ADMIN_URL=https://api.example.com ADMIN_TOKEN=adm_… npm run --silent admin -- companies list');
    } else {
      console.log(
        `Admin token: ${issued.existing} already registered (not shown again). Lost it? npm run migrate -- --new-admin-token`,
      );
    }
  }
} finally {
  await handle.close();
}

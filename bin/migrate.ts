import { parseArgs } from 'node:util';
import { issueAdminToken, registerAdminToken } from '../lib/admin-tokens';
import { migrateToLatest } from '../lib/db/migrate';
import { readSqlMigrations } from '../lib/db/migrations-fs';
import { DataFolderBusy, lockDataFolder } from '../lib/node/data-lock';
import { systemClock } from '../lib/clock';
import { adoptCopyMark, pgliteDirOf } from '../lib/node/backup';
import { dataDirOf } from '../lib/node/local-server';
import { exitOnBadSettings, exitWith, settingsOf } from '../lib/node/settings';
import { SettingsError } from '../lib/config';
import { ensureAdminToken, openDatabase } from '../lib/node/platform';

/**
 * `npm run migrate`: applies pending migrations to DATABASE_URL, or to the PGlite data under DATA_DIR. Then it
 * makes sure an operator can reach the admin API: against DATABASE_URL (a Workers + Neon deployment) it issues
 * the first admin token when there is none and prints it once (`--new-admin-token` issues one more); ADMIN_TOKEN,
 * when set, is registered instead; on PGlite the token is the Node server's own, in DATA_DIR/admin-token.
 *
 * On PGlite it holds the data folder's lock (lib/node/data-lock.ts) while it runs: it never opens a folder a running
 * server holds (that server applied the migrations when it started; stop it to run this), and no server starts on the
 * folder meanwhile.
 */
const { values } = parseArgs({ options: { 'new-admin-token': { type: 'boolean' } } });
const env = process.env;
exitOnBadSettings(env, settingsOf.migrate);
if (!env.DATABASE_URL) {
  try {
    lockDataFolder(dataDirOf(env), 'npm run migrate');
  } catch (error) {
    if (!(error instanceof DataFolderBusy)) throw error;
    console.error(
      `${error.message}\nA server applies pending migrations itself when it starts; to run them apart, stop it first.`,
    );
    process.exit(1);
  }
}
const handle = await openDatabase(env).catch((error: unknown) => {
  if (error instanceof SettingsError) exitWith(error);
  throw error;
});
try {
  const results = await migrateToLatest(handle, await readSqlMigrations());
  for (const r of results) console.log(`${r.status.padEnd(8)} ${r.migrationName}`);
  if (results.length === 0) console.log('Already up to date.');
  // A folder made from a backup (PGLITE_TEMPLATE) carries a mark until migrated: its outbound work starts paused.
  if (!env.DATABASE_URL) await adoptCopyMark(handle.db, pgliteDirOf(dataDirOf(env)), systemClock());
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

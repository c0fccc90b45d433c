import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { systemClock } from '../lib/clock';
import { backupOfFolder, restoreInto, sqlDumpOf } from '../lib/node/backup';
import { DataFolderBusy, dataFolderHolder, lockDataFolder } from '../lib/node/data-lock';
import { adminCommandOf, adminTarget, adminTokenOf, dataDirOf } from '../lib/node/local-server';

/**
 * The embedded database's commands of the admin CLI (bin/admin.ts; lib/node/backup.ts does the work). A backup and an
 * export go through the running server when one holds the data folder (or ADMIN_URL names one): it takes the backup
 * while it serves. With no server, the command holds the folder's lock itself while it reads. A restore replaces the
 * folder's database, so it runs only when no server holds the folder.
 */
export const databaseUsage = `  backup <file.tar.gz>                      a consistent backup of the embedded database (PGlite), also while
                                            the server runs; restore <file.tar.gz> puts one back (server stopped)
  export <file.sql>                         the embedded database as SQL that PostgreSQL or Neon loads:
                                            psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -f <file.sql>
  outbound status | outbound resume         a restored or exported copy starts with outbound work (webhooks,
                                            calendar imports, rebuild hooks) paused: resume it once it is the one to run`;

type Env = NodeJS.ProcessEnv;

/** Runs `backup`, `restore` or `export`; undefined when the command is not one of them. */
export function databaseCommand(
  command: string,
  arg: (i: number, what: string) => string,
  env: Env,
): Promise<unknown> | undefined {
  switch (command) {
    case 'backup':
      return backup(env).then(async (archive) => {
        const file = resolve(arg(1, '<file.tar.gz>'));
        await writeFile(file, archive.bytes);
        return { backup: file, bytes: archive.bytes.byteLength, taken_by: archive.from, ...keysNote(env) };
      });
    case 'export':
      return backup(env).then(async (archive) => {
        const file = resolve(arg(1, '<file.sql>'));
        const dump = await sqlDumpOf(new Blob([archive.bytes]), systemClock());
        await writeFile(file, dump);
        return {
          export: file,
          bytes: Buffer.byteLength(dump),
          taken_by: archive.from,
          load_with: `psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -f ${file}`,
          outbound: pausedNote('npm run --silent admin --'),
          ...keysNote(env),
        };
      });
    case 'restore':
      return restore(env, resolve(arg(1, '<file.tar.gz>')));
    default:
      return undefined;
  }
}

/** What a copy's operator is told: its outbound work starts paused (lib/outbound.ts); `admin`: the command to resume. */
const pausedNote = (admin: string) =>
  `paused: the copy serves requests, but sends no webhooks, syncs no calendar imports and calls no rebuild hooks until you run \`${admin} outbound resume\` against it (once the original no longer runs, or the copy is meant to run beside it).`;

/** What a backup leaves out: the keys that encrypt stored secrets are files beside the database (or variables). */
function keysNote(env: Env) {
  const dir = dataDirOf(env);
  return {
    not_included: `The keys in ${dir} (details-keys.json, webhook-secret-key, admin-token) are not in the backup: keep a copy of them apart (they do not change); a database restored or moved without them cannot read stored lead details or webhook secrets.`,
  };
}

/** A backup: from the server that holds the folder (or ADMIN_URL), else read here under the folder's lock. */
async function backup(env: Env): Promise<{ bytes: Uint8Array<ArrayBuffer>; from: string }> {
  if (env.DATABASE_URL) {
    throw new Error('DATABASE_URL is set: back up a PostgreSQL database with pg_dump (or your provider’s backups).');
  }
  const dataDir = dataDirOf(env);
  if (env.ADMIN_URL || dataFolderHolder(dataDir)) {
    const target = await adminTarget(env);
    if ('error' in target) throw new Error(target.error);
    const res = await fetch(`${target.url}/admin/v1/database/backup`, {
      headers: { Authorization: `Bearer ${await adminTokenOf(env)}` },
    }).catch((error: Error) => {
      throw new Error(`Cannot reach the server at ${target.url} (${error.message}).`);
    });
    if (!res.ok) {
      const why = res.status === 404 ? ' (a server on PostgreSQL, or a Worker, has no embedded database to back up)' : '';
      throw new Error(`The server at ${target.url} answered ${res.status}${why}: ${await res.text()}`);
    }
    return { bytes: new Uint8Array(await res.arrayBuffer()), from: `the running server at ${target.url}` };
  }
  const lock = holdFolder(dataDir, 'npm run admin -- backup');
  try {
    return { bytes: new Uint8Array(await (await backupOfFolder(dataDir)).arrayBuffer()), from: dataDir };
  } finally {
    lock.release();
  }
}

async function restore(env: Env, file: string): Promise<unknown> {
  if (env.DATABASE_URL || env.ADMIN_URL) {
    throw new Error('restore replaces the embedded database of DATA_DIR on this machine: unset DATABASE_URL and ADMIN_URL.');
  }
  const dataDir = dataDirOf(env);
  const lock = holdFolder(dataDir, 'npm run admin -- restore', 'A restore replaces the database: stop the server, then restore.');
  try {
    const result = await restoreInto(dataDir, file, systemClock());
    return {
      restored: file,
      into: dataDir,
      companies: result.companies,
      previous_database_kept_in: result.kept ?? null,
      outbound: pausedNote(adminCommandOf(env)),
      ...keysNote(env),
    };
  } finally {
    lock.release();
  }
}

function holdFolder(dataDir: string, role: string, advice?: string) {
  try {
    return lockDataFolder(dataDir, role);
  } catch (error) {
    if (error instanceof DataFolderBusy && advice) throw new Error(`${error.message}\n${advice}`);
    throw error;
  }
}

import { statSync } from 'node:fs';
import { isIP } from 'node:net';
import { adminTokenMinLength } from '../admin-tokens';
import { configForms, configProblems, SettingsError, settingLine } from '../config';

/**
 * The Node server's and the command lines' own settings (issue 32, defect 9), checked before anything starts, beside
 * the configuration's (lib/config.ts): one line per bad setting, naming it and the form it needs, then exit 1. Never a
 * stack trace nor a ZodError.
 */
type Setting = { form: string; valid: (value: string) => boolean };

/** A PostgreSQL memory size as shared_buffers takes it: a number of 8 kB blocks, or with a unit; at least 128 kB. */
function memorySize(value: string): boolean {
  const match = /^([1-9][0-9]*)(kB|MB|GB|TB)?$/.exec(value);
  if (!match) return false;
  const unit: Record<string, number> = { kB: 1, MB: 1024, GB: 1024 ** 2, TB: 1024 ** 3 };
  const kilobytes = Number(match[1]) * (match[2] ? (unit[match[2]] ?? 0) : 8);
  return kilobytes >= 128;
}

function absoluteUrl(value: string, protocols: string[]): boolean {
  try {
    const url = new URL(value);
    return protocols.includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}

export const nodeSettings: Record<string, Setting> = {
  PORT: {
    form: 'a whole number from 0 to 65535 (0: a free port the system picks)',
    valid: (v) => /^[0-9]{1,5}$/.test(v) && Number(v) <= 65535,
  },
  HOST: {
    form: 'an IP address or a host name to listen on (0.0.0.0: every interface)',
    valid: (v) =>
      isIP(v) !== 0 || /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(v),
  },
  DATA_DIR: {
    form: 'a folder path (made when missing)',
    valid: (v) => {
      try {
        return statSync(v).isDirectory();
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'ENOENT';
      }
    },
  },
  DATABASE_URL: {
    form: 'a PostgreSQL connection URL (postgresql://user:password@host:5432/database)',
    valid: (v) => absoluteUrl(v, ['postgresql:', 'postgres:']),
  },
  ADMIN_TOKEN: {
    form: `at least ${adminTokenMinLength} random characters (unset: one is generated into DATA_DIR/admin-token)`,
    valid: (v) => v.length >= adminTokenMinLength,
  },
  ADMIN_URL: {
    form: 'the base URL of a server’s admin API (https://api.example.com)',
    valid: (v) => absoluteUrl(v, ['http:', 'https:']),
  },
  PGLITE_SHARED_BUFFERS: {
    form: 'a PostgreSQL memory size of 128kB or more, such as 32MB (a number with kB, MB or GB)',
    valid: memorySize,
  },
  PGLITE_TEMPLATE: {
    form: 'a gzipped tarball PGlite dumped (a file)',
    valid: (v) => {
      try {
        return statSync(v).isFile();
      } catch (error) {
        // Read only when a new data folder is made (lib/node/database.ts checks it then).
        return (error as NodeJS.ErrnoException).code === 'ENOENT';
      }
    },
  },
};

/** What each program reads: the server everything; the command lines their own. */
export const settingsOf = {
  server: [...Object.keys(nodeSettings).filter((name) => name !== 'ADMIN_URL'), ...Object.keys(configForms)],
  migrate: ['DATA_DIR', 'DATABASE_URL', 'ADMIN_TOKEN', 'PGLITE_SHARED_BUFFERS', 'PGLITE_TEMPLATE'],
  admin: ['DATA_DIR', 'DATABASE_URL', 'ADMIN_TOKEN', 'ADMIN_URL', 'PORT'],
} as const;

/** The bad settings among `names`, one line each. */
export function settingsProblems(env: NodeJS.ProcessEnv, names: readonly string[]): string[] {
  const problems: string[] = [];
  for (const name of names) {
    const setting = nodeSettings[name];
    const value = env[name];
    if (setting && value !== undefined && value !== '' && !setting.valid(value)) {
      problems.push(settingLine(name, setting.form, value));
    }
  }
  if (names.some((name) => name in configForms)) problems.push(...configProblems(env));
  return problems;
}

/** Prints each bad setting on one line of stderr and ends the process with status 1; returns when all are good. */
export function exitOnBadSettings(env: NodeJS.ProcessEnv, names: readonly string[]): void {
  exitWith(settingsProblems(env, names));
}

/** The end of a start that met bad settings (a SettingsError, or the lines themselves): one line each, status 1. */
export function exitWith(problems: string[] | SettingsError): void {
  const lines = problems instanceof SettingsError ? problems.problems : problems;
  if (lines.length === 0) return;
  for (const line of lines) console.error(line);
  process.exit(1);
}

import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LogEvent } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../lib/db/index';
import { migrateToLatest, type SqlMigrations } from '../../lib/db/migrate';
import { readSqlMigrations } from '../../lib/db/migrations-fs';
import { openPGlite } from '../../lib/db/pglite';
import { ensureAdminToken } from '../../lib/node/platform';
import { configForms } from '../../lib/config';
import { newDetailsKey } from '../../lib/crypto-jwe';
import { runBin } from '../support/server-process';

/**
 * What `npm start` does on an existing data folder before it listens, kept to reads: a database that has every
 * migration is asked one question and migrated no further (one missing is applied, through Kysely's migrator as
 * before); an admin token already registered is looked up, not written again.
 */
let handle: DatabaseHandle;
let statements: string[] = [];
let migrations: SqlMigrations;

beforeAll(async () => {
  handle = await openPGlite({ log: (event: LogEvent) => void statements.push(event.query.sql) });
  migrations = await readSqlMigrations();
});
afterAll(() => handle.close());

const first = (n: number) => Object.fromEntries(Object.entries(migrations).slice(0, n));

describe('migrateToLatest', () => {
  it('applies what is missing, then sees in two statements that nothing is', async () => {
    expect((await migrateToLatest(handle, first(2))).map((r) => r.status)).toEqual(['Success', 'Success']);
    statements = [];
    expect(await migrateToLatest(handle, first(2))).toEqual([]);
    expect(statements).toHaveLength(2);
    expect(statements.join('\n')).not.toMatch(/pg_catalog|information_schema/);
    // One more migration in the folder: the migrator applies it.
    const more = await migrateToLatest(handle, first(3));
    expect(more.map((r) => [r.migrationName, r.status])).toEqual([[Object.keys(migrations)[2], 'Success']]);
  });
});

describe('ensureAdminToken', () => {
  it('registers a new token, and only reads on a start that finds it registered', async () => {
    await migrateToLatest(handle, first(3)); // the admin tokens table (0001), as the test above left it
    const env = { ADMIN_TOKEN: 'adm_start_up_test_token_of_40_characters' };
    statements = [];
    await ensureAdminToken(handle, env);
    expect(statements.some((text) => /^insert into "admin_tokens"/.test(text))).toBe(true);
    statements = [];
    await ensureAdminToken(handle, env);
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/^select /);
  });
});

/**
 * Issue 32, defect 9: every setting is checked when a program starts, as a real process: one line of stderr per bad
 * setting, naming it and the form it needs, exit status 1, no stack trace and no ZodError; a secret's value is never
 * repeated. Nothing is opened or made before (the data folder is not even created).
 */
describe('bad settings at start', { timeout: 300_000 }, () => {
  const lines = (stderr: string) => stderr.trim().split('\n');
  const expectOneLineEach = (stderr: string, names: string[]) => {
    expect(lines(stderr).map((line) => line.slice(0, line.indexOf(':')))).toEqual(names);
    for (const line of lines(stderr)) expect(line).toMatch(/^[A-Z_]+: expected .+, got .+$/);
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(stderr).not.toContain('ZodError');
  };

  it('npm start: one line per bad setting, status 1, nothing made', async () => {
    const dataDir = join(tmpdir(), `pa-settings-${process.pid}-${Date.now()}`);
    const started = await runBin('server.ts', [], {
      DATA_DIR: dataDir,
      DETAILS_KEYS: 'abc',
      PORT: 'eighty',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '-1',
      MEDIA_BASE_URL: 'media.example.com',
      PGLITE_SHARED_BUFFERS: 'lots',
      WEBHOOK_SECRET_KEY: 'not-32-bytes',
      SCHEDULER_INTERVAL_SECONDS: 'often',
    });
    expect(started.code).toBe(1);
    expectOneLineEach(started.stderr, [
      'PORT',
      'PGLITE_SHARED_BUFFERS',
      'RATE_LIMIT_ANONYMOUS_PER_MINUTE',
      'MEDIA_BASE_URL',
      'WEBHOOK_SECRET_KEY',
      'SCHEDULER_INTERVAL_SECONDS',
      'DETAILS_KEYS',
    ]);
    expect(started.stderr).toContain('PORT: expected a whole number from 0 to 65535');
    expect(started.stderr).toContain('got "eighty"');
    expect(started.stderr).toMatch(/^DETAILS_KEYS: expected a JSON object of key ids .* got a value of 3 characters/m);
    // Secrets are not repeated.
    expect(started.stderr).not.toContain('not-32-bytes');
    expect(started.stdout).toBe('');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('a DATA_DIR that cannot be a folder is one line too', async () => {
    const file = join(tmpdir(), `pa-settings-file-${process.pid}`);
    writeFileSync(file, 'a file, not a folder\n');
    try {
      const started = await runBin('server.ts', [], { DATA_DIR: join(file, 'data') });
      expect(started.code).toBe(1);
      expectOneLineEach(started.stderr, ['DATA_DIR']);
      expect(started.stderr).toContain(`got "${join(file, 'data')}"`);
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('says which of two settings that go together is missing, and what it must name', async () => {
    const { kid, key } = newDetailsKey();
    const alone = await runBin('server.ts', [], {
      DATA_DIR: join(tmpdir(), 'pa-never'),
      DETAILS_KEYS: JSON.stringify({ [kid]: key }),
    });
    expect(alone.code).toBe(1);
    expectOneLineEach(alone.stderr, ['DETAILS_KEY_ID']);
    expect(alone.stderr).toContain(`(${kid})`);
    const other = await runBin('server.ts', [], {
      DATA_DIR: join(tmpdir(), 'pa-never'),
      DETAILS_KEYS: JSON.stringify({ [kid]: key }),
      DETAILS_KEY_ID: 'other',
      QSTASH_TOKEN: 'token',
    });
    expect(other.code).toBe(1);
    expectOneLineEach(other.stderr, ['INTERNAL_BASE_URL', 'DETAILS_KEY_ID']);
  });

  it('npm run migrate and the admin command line check the settings they read', async () => {
    const migrate = await runBin('migrate.ts', [], { DATABASE_URL: 'mysql://db.example.com/app', ADMIN_TOKEN: 'changeme' });
    expect(migrate.code).toBe(1);
    expectOneLineEach(migrate.stderr, ['DATABASE_URL', 'ADMIN_TOKEN']);
    expect(migrate.stderr).not.toContain('db.example.com');
    const admin = await runBin('admin.ts', ['companies', 'list'], { ADMIN_URL: 'api.example.com', PORT: '99999' });
    expect(admin.code).toBe(1);
    expectOneLineEach(admin.stderr, ['ADMIN_URL', 'PORT']);
  });

  it('every setting of the configuration says the form it needs', () => {
    const vague = Object.entries(configForms).filter(([, form]) => form === 'another value');
    expect(vague).toEqual([]);
    expect(Object.keys(configForms).length).toBeGreaterThan(25);
  });
});

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import createClient from 'openapi-fetch';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { paths as AdminPaths } from '../../clients/admin/schema';
import { createPropertyApiClient } from '../../clients/typescript/src/index';
import { baseUrlOf, runBin, type ServerProcess, startServer, stopServer } from '../support/server-process';
import { spawnedServersHere } from '../support/passes';

/** The typed public client of a server over real HTTP, with `host` in its Host header when given. */
const publicAt = (base: string, host?: string) =>
  createPropertyApiClient({ baseUrl: base, headers: host === undefined ? {} : { Host: host } });
/** The typed admin client of a server over real HTTP, with the operator's token. */
const adminAt = (base: string, token: string) =>
  createClient<AdminPaths>({ baseUrl: base, headers: { Authorization: `Bearer ${token}` } });

/**
 * Issue 21, defects 5 and 6, with real processes on real data folders: a production start seeds nothing and says how
 * to create the first company; one server per data folder (an OS lock that dies with its process), the refused start
 * naming the running one and leaving its files alone; `npm run migrate` never opens a folder a server holds.
 */
const folders: string[] = [];
const servers: ServerProcess[] = [];

async function dataFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'property-api-modes-'));
  folders.push(dir);
  return dir;
}

function server(dataDir: string, extra: Record<string, string> = {}): ServerProcess {
  const started = startServer(dataDir, extra);
  servers.push(started);
  return started;
}

afterEach(async () => {
  for (const s of servers.splice(0)) await stopServer(s);
});
afterAll(async () => {
  for (const dir of folders) await rm(dir, { recursive: true, force: true });
});

describe.runIf(spawnedServersHere)('NODE_ENV=production npm start on an empty data folder', { timeout: 180_000 }, () => {
  it('creates no company, answers no request for localhost, and says how to create the first company', async () => {
    const dataDir = await dataFolder();
    const production = server(dataDir, { NODE_ENV: 'production' });
    await production.started;
    const base = await baseUrlOf(dataDir);

    const listings = await publicAt(base, 'localhost').GET('/api/v1/listings');
    expect(listings.response.status).toBe(404);
    expect(listings.response.headers.get('content-type')).toContain('application/problem+json');
    expect(listings.error?.code).toBe('unknown_host');
    const loopback = await publicAt(base).GET('/api/v1/listings');
    expect(loopback.response.status).toBe(404);

    const token = (await readFile(join(dataDir, 'admin-token'), 'utf8')).trim();
    const companies = await adminAt(base, token).GET('/admin/v1/companies');
    expect(companies.data?.results).toEqual([]);

    expect(production.output()).toContain('(production)');
    expect(production.output()).toContain('npm run --silent admin -- companies create');

    // Issue 32, the first hour: the banner offers only what answers here (no catalogue URL: no company answers on
    // this address), and the admin command line with this server's DATA_DIR, which finds the server as printed.
    const printed = [...production.output().matchAll(/https?:\/\/[^\s)]+/g)].map((match) => match[0]);
    expect(printed).toContain(`${base}/health/ready`);
    // raw: every address the banner prints (the health routes are not operations of the documents)
    for (const url of printed) expect([url, (await fetch(url)).status]).toEqual([url, 200]);
    expect(production.output()).not.toContain('/api/v1/listings');
    const hint = `DATA_DIR=${dataDir} npm run --silent admin -- companies create`;
    expect(production.output()).toContain(hint);
    expect(production.output()).toContain(`DATA_DIR=${dataDir} npm run --silent admin -- keys create`);
    const create = await runBin(
      'admin.ts',
      ['companies', 'create', '--name', 'First', '--host', 'api.example.test', '--environment', 'production'],
      { DATA_DIR: dataDir },
    );
    expect(create.code, create.stderr).toBe(0);

    // Issue 32, defect 9: a port already taken is one line naming PORT, status 1, no stack trace.
    const taken = server(await dataFolder(), { NODE_ENV: 'production', PORT: new URL(base).port });
    expect(await taken.exited).toBe(1);
    const said = taken.output().trim().split('\n').at(-1);
    expect(said).toBe(`PORT: expected a port free to listen on at 127.0.0.1 (EADDRINUSE), got "${new URL(base).port}"`);
    expect(taken.output()).not.toMatch(/^\s+at /m);
  });

  it('on PostgreSQL too (DATABASE_URL, a fresh database): no company, no answer for localhost', async () => {
    const serverUrl = process.env.MOVE_TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
    const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 3_000 });
    const reachable = await admin.connect().then(
      () => true,
      () => false,
    );
    if (!reachable) {
      if (process.env.CI) throw new Error(`CI: no PostgreSQL server at ${serverUrl}.`);
      console.warn(`Skipped: no PostgreSQL server at ${serverUrl}.`);
      return;
    }
    const name = `pa_production_${process.pid}_${Date.now()}`;
    await admin.query(`create database "${name}"`);
    try {
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      const dataDir = await dataFolder();
      const production = server(dataDir, { NODE_ENV: 'production', DATABASE_URL: url.toString() });
      await production.started;
      expect(production.output()).toContain('Property API on postgres (production) — no company yet');
      const listings = await publicAt(await baseUrlOf(dataDir), 'localhost').GET('/api/v1/listings');
      expect(listings.response.status).toBe(404);
      await stopServer(production);
    } finally {
      await admin.query(`drop database if exists "${name}" with (force)`);
      await admin.end();
    }
  });

  it('npm start without NODE_ENV is still the demo', async () => {
    const dataDir = await dataFolder();
    const demo = server(dataDir);
    await demo.started;
    const listings = await publicAt(await baseUrlOf(dataDir), 'localhost').GET('/api/v1/listings');
    expect(listings.response.status).toBe(200);
    expect(demo.output()).toContain('demo company created');
  });
});

describe.runIf(spawnedServersHere)('one server per data folder', { timeout: 180_000 }, () => {
  it('refuses a second start, naming the port and pid of the first, and leaves its server.json alone', async () => {
    const dataDir = await dataFolder();
    const first = server(dataDir);
    await first.started;
    const record = await readFile(join(dataDir, 'server.json'), 'utf8');
    const { base_url: base, pid } = JSON.parse(record);

    const second = server(dataDir);
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(`process ${pid}`);
    expect(second.output()).toContain(`port ${new URL(base).port}`);
    expect(second.output()).toContain(dataDir);

    // The first server's record and database are untouched: it still answers, and the admin CLI still finds it.
    expect(await readFile(join(dataDir, 'server.json'), 'utf8')).toBe(record);
    expect((await publicAt(base).GET('/api/v1/listings')).response.status).toBe(200);
    const listed = await runBin('admin.ts', ['companies', 'list'], { DATA_DIR: dataDir });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).results).toHaveLength(1);

    // npm run migrate does not open the folder while the server holds it.
    const migrate = await runBin('migrate.ts', [], { DATA_DIR: dataDir });
    expect(migrate.code).toBe(1);
    expect(migrate.stderr).toContain(`process ${pid}`);
  });

  it('a server killed with SIGKILL leaves no lock behind: the next start succeeds on the same data', async () => {
    const dataDir = await dataFolder();
    const first = server(dataDir);
    await first.started;
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');

    const next = server(dataDir);
    await next.started;
    expect(next.output()).toContain('existing data reused');
    const { pid } = JSON.parse(await readFile(join(dataDir, 'server.json'), 'utf8'));
    expect(pid).toBe(next.child.pid);
    expect((await publicAt(await baseUrlOf(dataDir)).GET('/api/v1/listings')).response.status).toBe(200);
  });
});

describe.runIf(spawnedServersHere)('backup, export and restore of the embedded database (issue 23)', { timeout: 300_000 }, () => {
  it('backs up and exports through the running server, refuses a restore while it runs, restores once it stopped', async () => {
    const dataDir = await dataFolder();
    const running = server(dataDir);
    await running.started;
    const base = await baseUrlOf(dataDir);
    const token = (await readFile(join(dataDir, 'admin-token'), 'utf8')).trim();
    const companies = async (at = base) => (await adminAt(at, token).GET('/admin/v1/companies')).data?.results ?? [];

    const file = join(dataDir, '..', `${basename(dataDir)}-backup.tar.gz`);
    folders.push(file);
    const backup = await runBin('admin.ts', ['backup', file], { DATA_DIR: dataDir });
    expect(backup.code).toBe(0);
    expect(JSON.parse(backup.stdout).taken_by).toBe(`the running server at ${base}`);

    const sqlFile = `${file}.sql`;
    folders.push(sqlFile);
    const exported = await runBin('admin.ts', ['export', sqlFile], { DATA_DIR: dataDir });
    expect(exported.code).toBe(0);
    const dump = await readFile(sqlFile, 'utf8');
    expect(dump).toMatch(/CREATE TABLE public\.companies/);
    expect(dump).toContain('Demo Properties');

    // A change after the backup, which the restore takes back.
    const created = await adminAt(base, token).POST('/admin/v1/companies', {
      body: {
        name: 'After the backup',
        hosts: ['after.test'],
        environment: 'production',
        currency: 'AED',
        time_zone: 'Asia/Dubai',
      } as never,
    });
    expect(created.response.status).toBe(201);
    expect(await companies()).toHaveLength(2);

    const refused = await runBin('admin.ts', ['restore', file], { DATA_DIR: dataDir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`process ${running.child.pid}`);
    expect(refused.stderr).toContain('stop the server');

    await stopServer(running);
    const restored = await runBin('admin.ts', ['restore', file], { DATA_DIR: dataDir });
    expect(restored.code).toBe(0);
    expect(JSON.parse(restored.stdout).companies).toBe(1);

    const again = server(dataDir);
    await again.started;
    const names = (await companies(await baseUrlOf(dataDir))).map((company) => company.name);
    expect(names).toEqual(['Demo Properties']);
  });
});

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPropertyApiClient } from '../../clients/typescript/src/index';
import demoCatalogue from '../../functions/catalogue/demo-catalogue.json' with { type: 'json' };
import { spawnedServersHere } from '../support/passes';
import { binArgs, childNodeFlags } from '../support/server-process';

/**
 * What a newcomer does: `npm start` (here: the same bin/server.ts) on an empty data folder, then the admin
 * CLI against it, then a restart that reuses the data. Real processes, real HTTP on loopback.
 */
const run = promisify(execFile);
let dataDir: string;
let port: number;

/** The typed client of the server over real HTTP on `host` (its Host names the demo company), on a key if given. */
const clientAt = (
  host: '127.0.0.1' | 'localhost',
  options: { serverKey?: string; publishableKey?: string; headers?: Record<string, string> } = {},
) => createPropertyApiClient({ baseUrl: `http://${host}:${port}`, ...options });
let server: ChildProcess | undefined;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The server from the run's bundle of bin/server.ts (test/support/server-process.ts), or as `npm start` runs it:
 * bin/start.mjs, which builds its bundle when stale.
 */
async function start(args = binArgs('server.ts')): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' };
  delete env.DATABASE_URL;
  delete env.ADMIN_TOKEN;
  server = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Admin:')) {
        clearTimeout(timer);
        resolve();
      }
    };
    server?.stdout?.on('data', onData);
    server?.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server?.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  return output;
}

async function stop(): Promise<void> {
  if (!server || server.exitCode !== null) return;
  const exited = new Promise((resolve) => server?.once('exit', resolve));
  server.kill('SIGTERM');
  await exited;
}

/** The admin CLI from the run's bundle, or with `viaTsx` as `npm run admin` runs it (test/support/server-process.ts). */
async function cliHow(options: { viaTsx?: boolean }, ...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port) };
  delete env.ADMIN_TOKEN;
  const { stdout } = await run(process.execPath, [...binArgs('admin.ts', options), ...args], { env });
  return JSON.parse(stdout);
}
const cli = (...args: string[]) => cliHow({}, ...args);

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'property-api-e2e-'));
  port = await freePort();
});
afterAll(async () => {
  await stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe.runIf(spawnedServersHere)('npm start on an empty data folder, then the admin CLI', () => {
  let companyId: string;

  it('starts, seeds the demo company and prints the base URL, the docs URL and where the admin token is', async () => {
    const output = await start();
    expect(output).toContain('demo company created');
    expect(output).toContain(`http://localhost:${port}/api/v1`);
    expect(output).toContain(`http://localhost:${port}/api/v1/docs`);
    expect(output).toContain(join(dataDir, 'admin-token'));
    const res = await clientAt('127.0.0.1').GET('/api/v1/listings', { params: { query: { page_size: 100 } } });
    expect(res.response.status).toBe(200);
    const body = res.data as NonNullable<typeof res.data>;
    expect(body.results.length).toBe(demoCatalogue.listings.filter((l) => l.status === 'published').length);
    expect(new Set(body.results.map((l) => l.listing_type))).toEqual(new Set(['sale', 'lease', 'holiday_home']));
    // raw: the reference page is HTML, not an operation of the document
    const docs = await fetch(`http://localhost:${port}/api/v1/docs`);
    expect(docs.headers.get('content-type')).toContain('text/html');
    expect(await docs.text()).toContain('/api/v1/openapi.json');
  }, 120_000);

  it('lists companies and creates, uses, rotates and revokes a key through the CLI', async () => {
    // The newcomer's first command as `npm run admin` runs it, through tsx.
    const companies = await cliHow({ viaTsx: true }, 'companies', 'list');
    expect(companies.results).toHaveLength(1);
    companyId = companies.results[0].id;
    expect(companies.results[0].hosts).toEqual(['127.0.0.1', 'localhost']);
    const key = await cli('keys', 'create', companyId, '--kind', 'server', '--scope', 'read:listings');
    const read = (secret: string) => clientAt('127.0.0.1', { serverKey: secret }).GET('/api/v1/areas');
    expect((await read(key.secret)).response.status).toBe(200);
    const rotated = await cli('keys', 'rotate', companyId, key.prefix);
    expect((await read(rotated.secret)).response.status).toBe(200);
    expect((await read(key.secret)).response.status).toBe(200);
    await cli('keys', 'revoke', companyId, key.prefix);
    expect((await read(rotated.secret)).response.status).toBe(403);
    const audit = await cli('audit', companyId, '--action', 'key.rotated');
    expect(audit.results.map((e: { subject: string }) => e.subject)).toEqual([key.prefix]);
  }, 60_000);

  it('takes a booking request from a page on localhost, then staff confirm it and block nights through the CLI', async () => {
    const origin = 'http://localhost:3000';
    const key = await cli('keys', 'create', companyId, '--kind', 'publishable', '--origin', origin, '--lead-type', 'booking');
    const slug = 'palm-5br-villa-private-beach-holiday';
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const page = clientAt('localhost', { publishableKey: key.secret, headers: { Origin: origin } });
    const posted = await page.POST('/api/v1/bookings', {
      body: {
        listing: slug,
        check_in: day(40),
        check_out: day(45),
        guests: 4,
        name: 'Guest of the e2e test',
        email: 'guest@example.com',
        consent: true,
        consent_version: '2026-01',
        // Turnstile's test token: the demo company is a development workspace.
        challenge: 'XXXX.DUMMY.TOKEN.XXXX',
      },
    });
    expect(posted.response.status).toBe(201);
    expect(posted.response.headers.get('access-control-allow-origin')).toBe(origin);
    const booking = posted.data as { reference: string; stay_url: string };
    const listed = await cli('bookings', 'list', companyId, '--status', 'held');
    expect(listed.results.map((b: { reference: string }) => b.reference)).toEqual([booking.reference]);
    const confirmed = await cli('bookings', 'confirm', companyId, booking.reference);
    expect(confirmed.status).toBe('confirmed');
    expect(confirmed.payment_due_at).toBeTruthy();
    // raw: the stay page is HTML at a secret address, not an operation of the document
    const stay = await fetch(booking.stay_url);
    expect(stay.status).toBe(200);
    expect(await stay.text()).toContain('data-status="confirmed"');
    const block = await cli('blocks', 'add', companyId, slug, '--reason', 'maintenance', '--from', day(60), '--to', day(62));
    const availability = await clientAt('localhost').GET('/api/v1/listings/{slug}/availability', {
      params: { path: { slug }, query: { from: day(30), to: day(90) } },
    });
    expect(availability.data?.blocked).toEqual([
      { start: day(40), end: day(45) },
      { start: day(60), end: day(62) },
    ]);
    expect((await cli('blocks', 'list', companyId, slug)).results.map((b: { id: string }) => b.id)).toEqual([block.id]);
  }, 60_000);

  it('reuses the data on a second start, from the bundle npm start runs', async () => {
    await stop();
    const output = await start([...childNodeFlags, 'bin/start.mjs']);
    expect(output).toContain('existing data reused');
    const companies = await cli('companies', 'list');
    expect(companies.results.map((c: { id: string }) => c.id)).toEqual([companyId]);
    // The bundled packages work: a catalogue page, the reference page and the admin API answer.
    expect((await clientAt('127.0.0.1').GET('/api/v1/listings', { params: { query: { page_size: 2 } } })).response.status).toBe(
      200,
    );
    // raw: the reference page is HTML, not an operation of the document
    expect((await fetch(`http://localhost:${port}/api/v1/docs`)).headers.get('content-type')).toContain('text/html');
  }, 120_000);
});

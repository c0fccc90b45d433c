import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import newman from 'newman';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCollection } from '../../bin/collection';
import { leadTypes, scopes } from '../../schema/common/scopes';

/**
 * The Postman collection (bin/collection.ts) run with newman against `npm start` (bin/start.mjs, the demo company on
 * localhost) on an empty data folder: every request of every folder, in order, with a server key holding every scope
 * and a publishable key for the collection's `origin`. Green means every request got a documented answer, never a
 * 5xx, every refusal a problem, and the requests of the walk-through (`expect` below) their success.
 */
const run = promisify(execFile);
let dataDir: string;
let port: number;
let server: ChildProcess | undefined;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function cli(...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port) };
  delete env.ADMIN_TOKEN;
  delete env.DATABASE_URL;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args], { env });
  return JSON.parse(stdout);
}

beforeAll(async () => {
  if (process.env.DATABASE_URL) return;
  dataDir = await mkdtemp(join(tmpdir(), 'property-api-collection-'));
  port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' };
  delete env.DATABASE_URL;
  delete env.ADMIN_TOKEN;
  server = spawn(process.execPath, ['bin/start.mjs'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 120_000);
    server?.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Admin:')) {
        clearTimeout(timer);
        resolve();
      }
    });
    server?.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server?.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
}, 150_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server?.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

type Execution = {
  item: { name: string };
  request: { method: string; url: { toString(): string } };
  response?: { code: number; text(): string };
  assertions?: Array<{ assertion: string; error?: { message: string } }>;
};

// The server runs on PGlite in its own data folder either way: once (the PGlite pass) is enough.
const onPostgresPass = Boolean(process.env.DATABASE_URL);

describe.skipIf(onPostgresPass)('the Postman collection against npm start', () => {
  it('runs green with newman: every request answered as documented, the walk-through succeeding', async () => {
    const companies = await cli('companies', 'list');
    const companyId = companies.results[0].id as string;
    const scopeArgs = scopes.flatMap((scope) => ['--scope', scope]);
    const server = await cli('keys', 'create', companyId, '--kind', 'server', ...scopeArgs);
    const origin = 'http://localhost:3000';
    const leadArgs = leadTypes.flatMap((type) => ['--lead-type', type]);
    const publishable = await cli('keys', 'create', companyId, '--kind', 'publishable', '--origin', origin, ...leadArgs);
    const doc = await (await fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`)).json();
    const collection = buildCollection(doc);

    const summary = await new Promise<{
      run: { executions: Execution[]; failures: unknown[]; stats: Record<string, { total: number; failed: number }> };
    }>((resolve, reject) =>
      newman.run(
        {
          collection: collection as never,
          envVar: [
            { key: 'baseUrl', value: `http://localhost:${port}` },
            { key: 'serverKey', value: server.secret },
            { key: 'publishableKey', value: publishable.secret },
            { key: 'origin', value: origin },
          ],
          reporters: [],
          timeoutRequest: 30_000,
        },
        (error, result) => (error ? reject(error) : resolve(result as never)),
      ),
    );
    const executions = summary.run.executions;
    const failed = executions.flatMap((e) =>
      (e.assertions ?? [])
        .filter((a) => a.error)
        .map(
          (a) =>
            `${e.request.method} ${e.request.url.toString()} → ${e.response?.code}: ${a.assertion} ${e.response?.text().slice(0, 300)}`,
        ),
    );
    expect(failed).toEqual([]);
    expect(summary.run.failures).toEqual([]);
    const requests = (collection.item as Array<{ item: unknown[] }>).reduce((n, folder) => n + folder.item.length, 0);
    expect(executions).toHaveLength(requests);
    expect(requests).toBeGreaterThan(70);
    const succeeded = executions.filter((e) => (e.response?.code ?? 500) < 300);
    console.log(
      `collection: ${succeeded.length} of ${executions.length} requests succeeded; refused: ${executions
        .filter((e) => (e.response?.code ?? 0) >= 400)
        .map((e) => `${e.request.method} ${new URL(e.request.url.toString()).pathname} ${e.response?.code}`)
        .join(', ')}`,
    );

    // The walk-through a newcomer takes succeeds (not only answers): reads, a form with the publishable key and its
    // Origin, and CRM records created, then read and changed through the variables their creation set.
    const status = (method: string, path: string) => {
      const e = executions.find((e) => e.request.method === method && new URL(e.request.url.toString()).pathname === path);
      return `${e?.response?.code} ${e?.response?.code && e.response.code >= 300 ? e.response.text() : ''}`.trim();
    };
    const byName = (method: string, prefix: string) =>
      executions
        .filter((e) => e.request.method === method && new URL(e.request.url.toString()).pathname.startsWith(prefix))
        .map((e) => e.response?.code);
    expect(status('GET', '/api/v1/listings')).toBe('200');
    expect(status('GET', '/api/v1/areas')).toBe('200');
    expect(status('POST', '/api/v1/leads')).toBe('201');
    expect(status('POST', '/api/v1/contacts')).toBe('201');
    expect(status('GET', '/api/v1/listings/palm-5br-villa-private-beach-holiday')).toBe('200');
    expect(byName('PATCH', '/api/v1/contacts/')).toEqual([200]);
    expect(byName('GET', '/api/v1/tasks/')).toEqual([200]);
    // Most requests succeed outright; the rest are documented refusals (records the demo lacks, tokens to create first).
    expect(succeeded.length).toBeGreaterThanOrEqual(60);
  }, 300_000);
});

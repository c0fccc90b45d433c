import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApi, type TestApi } from '../support/harness';
import { createCompany, createKey } from '../support/world';

/**
 * The typed client as an installable package: `npm pack` in clients/typescript (its prepack builds dist/), the tarball
 * unpacked into an empty project's node_modules (offline: the built module bundles openapi-fetch, so nothing else is
 * needed to run it), and a plain `.mjs` script run by Node, with no TypeScript loader, against the real API on
 * loopback: every page of a list walked, a write whose first answer is lost retried with the same Idempotency-Key.
 */
const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('../../clients/typescript/', import.meta.url));
let api: TestApi;
let server: ServerType;
let baseUrl: string;
let companyId: string;
let project: string;
let tarball: string;

beforeAll(async () => {
  api = await createTestApi();
  const byte = () => 1 + Math.floor(Math.random() * 254);
  const address = `127.${byte()}.${byte()}.${byte()}`;
  ({ id: companyId } = await createCompany(api, { hosts: [address], environment: 'development' }));
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: api.app.fetch, port: 0, hostname: address }, (info: AddressInfo) => resolve(info.port));
  });
  baseUrl = `http://${address}:${port}`;
  project = await mkdtemp(join(tmpdir(), 'client-package-'));
  const packed = await run('npm', ['pack', '--json', '--pack-destination', project], { cwd: packageDir });
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  tarball = join(project, info!.filename);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'empty-project', private: true, type: 'module' }));
  const target = join(project, 'node_modules', '@property-api', 'client');
  await mkdir(target, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
}, 120_000);

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await api?.close();
  if (project) await rm(project, { recursive: true, force: true });
});

describe('the client package', () => {
  it('packs built JavaScript with types, exports pointing at the built files, and no import of its own', async () => {
    const manifest = JSON.parse(await readFile(join(project, 'node_modules/@property-api/client/package.json'), 'utf8'));
    expect(manifest.private).toBeUndefined();
    expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
    const listed = (await run('tar', ['-tzf', tarball])).stdout.split('\n').filter(Boolean).sort();
    expect(listed).toEqual(
      expect.arrayContaining([
        'package/dist/index.js',
        'package/dist/index.d.ts',
        'package/dist/schema.d.ts',
        'package/package.json',
      ]),
    );
    expect(listed.some((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'))).toBe(false);
    // A browser loads it as it is: an ES module that imports nothing (openapi-fetch is bundled in).
    const built = await readFile(join(project, 'node_modules/@property-api/client/dist/index.js'), 'utf8');
    expect(built).not.toMatch(/^\s*import\b|\bimport\s*\(|\brequire\(/m);
    expect(built).toMatch(/export\s*\{[^}]*createPropertyApiClient/);
    const types = await readFile(join(project, 'node_modules/@property-api/client/dist/index.d.ts'), 'utf8');
    expect(types).toContain('export declare function allPages');
    expect(types).toContain('export declare function withIdempotency');
  });

  it("carries the repository's licence, depends on nothing it bundles, and names the bundled code's licences", async () => {
    const root = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
    const installed = join(project, 'node_modules/@property-api/client');
    const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'));
    expect(manifest.license).toBe(root.license);
    expect(await readFile(join(installed, 'LICENSE'), 'utf8')).toBe(
      await readFile(new URL('../../LICENSE', import.meta.url), 'utf8'),
    );
    // openapi-fetch is in dist/index.js and its types in dist/: an installer has nothing more to fetch.
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.peerDependencies ?? {}).toEqual({});
    const notices = await readFile(join(installed, 'dist/THIRD-PARTY-LICENSES.txt'), 'utf8');
    expect(notices).toMatch(/^openapi-fetch \d+\.\d+\.\d+ \(MIT\)$/m);
    expect(notices).toContain('Copyright (c) 2023 Drew Powers');
  });

  it('type-checks a TypeScript use with the package alone (its declarations import nothing outside it)', async () => {
    await writeFile(
      join(project, 'use.ts'),
      `import { createPropertyApiClient, type Answer } from '@property-api/client';
const api = createPropertyApiClient({ baseUrl: 'https://api.example.com', serverKey: 'sk_x' });
export async function first(): Promise<string | undefined> {
  const { data } = await api.GET('/api/v1/contacts', { params: { query: { page_size: 1 } } });
  const row: Answer<'listContacts'>['results'][number] | undefined = data?.results[0];
  // @ts-expect-error: no such path (the types are the document's, not any)
  await api.GET('/api/v1/no-such-path');
  return row?.reference;
}
`,
    );
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2022', 'DOM'],
          types: [],
        },
        files: ['use.ts'],
      }),
    );
    const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
    const checked = await run(process.execPath, [tsc, '-p', project]).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    expect(checked).toBe('');
  }, 60_000);

  it('runs from a plain .mjs script in Node: every page of a list, and a retried write that takes effect once', async () => {
    const { secret } = await createKey(api, companyId, { scopes: ['read:contacts', 'write:contacts'] });
    const script = `
import { allPages, createPropertyApiClient, withIdempotency } from '@property-api/client';

const api = createPropertyApiClient({ baseUrl: process.env.BASE_URL, serverKey: process.env.KEY });
for (let i = 0; i < 5; i++) {
  const { response } = await api.POST('/api/v1/contacts', { body: { name: 'Page ' + i, email: 'page' + i + '@example.com' } });
  if (response.status !== 201) throw new Error('create ' + response.status);
}

// The first attempt reaches the API, but its answer is lost on the way back: the retry sends the same key.
let attempts = 0;
const keys = [];
const losing = createPropertyApiClient({
  baseUrl: process.env.BASE_URL,
  serverKey: process.env.KEY,
  fetch: async (request) => {
    attempts++;
    keys.push(request.headers.get('Idempotency-Key'));
    const answer = await fetch(request);
    if (attempts === 1) throw new TypeError('fetch failed (the answer was lost)');
    return answer;
  },
});
const written = await withIdempotency(
  (key) => losing.POST('/api/v1/contacts', { body: { name: 'Once', email: 'once@example.com' }, headers: { 'Idempotency-Key': key } }),
  { wait: async () => {} },
);

const pages = [];
const rows = [];
for await (const person of allPages(async (cursor) => {
  const page = await api.GET('/api/v1/contacts', { params: { query: { page_size: 2, ...(cursor ? { cursor } : {}) } } });
  pages.push(page.response.status);
  return page;
})) rows.push(person.email);

console.log(JSON.stringify({
  pages,
  rows,
  attempts,
  keys,
  status: written.response.status,
  replayed: written.response.headers.get('Idempotent-Replayed'),
  reference: written.data.reference,
}));
`;
    await writeFile(join(project, 'use.mjs'), script);
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, BASE_URL: baseUrl, KEY: secret };
    const { stdout } = await run(process.execPath, ['use.mjs'], { cwd: project, env });
    const out = JSON.parse(stdout.trim().split('\n').pop() as string);
    expect(out.attempts).toBe(2);
    expect(out.keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.keys[1]).toBe(out.keys[0]);
    expect(out.status).toBe(201);
    expect(out.replayed).toBe('true');
    // Six people: five, and the one written once although it was sent twice; three pages of two.
    expect(out.rows.sort()).toEqual(['once@example.com', ...[0, 1, 2, 3, 4].map((i) => `page${i}@example.com`)].sort());
    expect(out.pages).toEqual([200, 200, 200]);
  }, 60_000);
});

import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import type { Services } from '../lib/env';
import { buildApp } from '../functions/app';

/**
 * Writes the published OpenAPI documents without a server or a database: the app is built with no services
 * (serving a document needs none) and asked for each document as a client would.
 *   tsx bin/openapi.ts [--out openapi/openapi.json] [--admin openapi/admin.json]
 */
const { values } = parseArgs({
  options: { out: { type: 'string', default: 'openapi/openapi.json' }, admin: { type: 'string' } },
});

const app = buildApp(async () => ({ services: {} as Services }), { admin: true });

async function save(path: string, file: string): Promise<void> {
  const res = await app.request(path);
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(await res.json(), null, 2)}\n`);
  console.log(`${path} → ${file}`);
}

await save('/api/v1/openapi.json', values.out);
if (values.admin) await save('/admin/v1/openapi.json', values.admin);

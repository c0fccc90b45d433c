import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';

/**
 * The Postman collection (v2.1) of the public API, from the checked-in OpenAPI document, written so that the same
 * document always gives the same file (CI regenerates it and fails on a difference):
 *   tsx bin/collection.ts [--spec openapi/openapi.json] [--out collections/property-api.postman_collection.json]
 * The converter fakes example bodies with Math.random and gives every item a random id: the random numbers are
 * seeded here, the ids and the example answers (the document has the schemas) are left out.
 */
const { values } = parseArgs({
  options: {
    spec: { type: 'string', default: 'openapi/openapi.json' },
    out: { type: 'string', default: 'collections/property-api.postman_collection.json' },
  },
});

let seed = 1;
Math.random = () => {
  seed = (seed * 16807) % 2147483647; // Park–Miller: enough for repeatable fake values
  return (seed - 1) / 2147483646;
};
// Loaded after the seeding, so that whatever it keeps of Math.random at load time is the seeded one.
const { convert } = await import('openapi-to-postmanv2');

const options = { folderStrategy: 'Tags', parametersResolution: 'Schema', enableOptionalParameters: false } as const;
const collection = await new Promise<Record<string, unknown>>((resolve, reject) =>
  convert({ type: 'file', data: values.spec }, options, (error, result) => {
    const data = result?.output?.[0]?.data;
    if (error || !result?.result || !data) reject(error ?? new Error(result?.reason ?? 'conversion failed'));
    else resolve(data as Record<string, unknown>);
  }),
);

/** Drops random ids and example answers, and folders left empty (the events have no request to send). */
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) {
    return node.map(tidy).filter((item) => !(item && typeof item === 'object' && 'item' in item && !(item.item as []).length));
  }
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key]) => key !== 'id' && key !== '_postman_id' && key !== 'response')
      .map(([key, value]) => [key, tidy(value)]),
  );
}

const tidied = tidy(collection) as Record<string, unknown>;
// Variables to fill in: the company's API host and its keys (a server key, or a publishable key for the forms).
tidied.variable = [
  { key: 'baseUrl', value: 'http://localhost:8787', type: 'string' },
  { key: 'bearerToken', value: '', type: 'string' },
  { key: 'apiKey', value: '', type: 'string' },
];
await mkdir(dirname(values.out), { recursive: true });
await writeFile(values.out, `${JSON.stringify(tidied, null, 2)}\n`);
console.log(`${values.spec} → ${values.out}`);

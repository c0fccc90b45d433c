import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/**
 * The Postman collection (v2.1) of the public API, built from the checked-in OpenAPI document, the same file for the
 * same document (CI regenerates it and fails on a difference):
 *   tsx bin/collection.ts [--spec openapi/openapi.json] [--out collections/property-api.postman_collection.json]
 *
 * It runs as it is (`newman run`, test/e2e/collection.test.ts against `npm start`): every body is the operation's own
 * example (or, where the document has none, the required fields from the schema's examples), every write sends a new
 * `Idempotency-Key` (`{{$guid}}`), a publishable key goes with the `Origin` it was made for, and the keys, the base URL
 * and the records a request needs are collection variables. The variable of a record (`{{contacts_reference}}`, …) is
 * set by the test script of the request that first answers with one: a create, or the first row of a list. Folders
 * follow the document's tags and its order, so a list and a create come before the reads of one record.
 */

type Json = Record<string, unknown>;
type Operation = {
  summary?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: Json; example?: unknown }>;
  requestBody?: {
    content?: Record<string, { example?: unknown; examples?: Record<string, { value?: unknown }>; schema?: Json }>;
  };
  responses?: Record<string, unknown>;
};

/** A create before the list of the same path: the list then names a record for the requests after it. */
const methods = ['post', 'get', 'put', 'patch', 'delete'] as const;

/** A path parameter's collection variable: `task_id` as it is, else the resource's segment with it (`contacts_reference`). */
export function variableOf(path: string, param: string): string {
  if (param.endsWith('_id')) return param;
  const segments = path.split('/');
  const at = segments.indexOf(`{${param}}`);
  return `${(segments[at - 1] ?? 'record').replace(/-/g, '_')}_${param}`;
}

/** The record a create or a list names: its collection path's variable (`/api/v1/contacts` → `contacts_reference`). */
function capturesFor(path: string, doc: Json): Array<{ variable: string; field: string }> {
  const paths = doc.paths as Record<string, unknown>;
  const found: Array<{ variable: string; field: string }> = [];
  for (const other of Object.keys(paths)) {
    const match = other.match(/^(.*)\/\{([a-z_]+)\}$/);
    if (!match || match[1] !== path) continue;
    // The record's field has the parameter's name: `reference`, `slug`, `task_id`, …
    const param = match[2] as string;
    found.push({ variable: variableOf(other, param), field: param });
  }
  return found;
}

function resolve(doc: Json, schema: Json | undefined): Json | undefined {
  let at = schema;
  for (let i = 0; at && typeof at.$ref === 'string' && i < 20; i++) {
    at = (doc.components as { schemas: Record<string, Json> }).schemas[(at.$ref as string).split('/').pop() as string];
  }
  return at;
}

/** A value for a schema with no example of its own body: its example, first enum value, or the required fields. */
function exampleOf(doc: Json, schema: Json | undefined, depth = 0): unknown {
  const s = resolve(doc, schema);
  if (!s || depth > 6) return undefined;
  if (s.example !== undefined) return s.example;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.enum)) return s.enum[0];
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const options = s[key] as Json[] | undefined;
    if (options?.length) return exampleOf(doc, options[0], depth + 1);
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  if (type === 'object' || s.properties) {
    const properties = (s.properties ?? {}) as Record<string, Json>;
    const required = (s.required ?? []) as string[];
    return Object.fromEntries(required.map((name) => [name, exampleOf(doc, properties[name], depth + 1)]));
  }
  if (type === 'array') return [exampleOf(doc, s.items as Json, depth + 1)].filter((v) => v !== undefined);
  if (type === 'integer' || type === 'number') return typeof s.minimum === 'number' ? s.minimum : 1;
  if (type === 'boolean') return true;
  if (type === 'string') {
    if (s.format === 'date') return '2026-06-01';
    if (s.format === 'date-time') return '2026-06-01T09:00:00Z';
    if (s.format === 'email') return 'someone@example.com';
    if (s.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
    if (s.format === 'uri') return 'https://www.example.com/';
    return 'example';
  }
  return undefined;
}

function bodyOf(doc: Json, operation: Operation): unknown {
  const json = operation.requestBody?.content?.['application/json'];
  if (!json) return undefined;
  if (json.example !== undefined) return json.example;
  const first = Object.values(json.examples ?? {})[0];
  if (first?.value !== undefined) return first.value;
  return exampleOf(doc, json.schema) ?? {};
}

/**
 * A browser form sent with a publishable key carries the spam check's token (`challenge`, Cloudflare Turnstile), which
 * the examples leave out: `{{challengeToken}}`, by default Turnstile's test token, which a development workspace
 * (the demo company) accepts; a production workspace needs a real widget's token.
 */
function withChallenge(doc: Json, operation: Operation, body: unknown): unknown {
  if (Object.keys(operation.security?.[0] ?? {})[0] !== 'publishableKey') return body;
  if (!body || typeof body !== 'object' || Array.isArray(body) || 'challenge' in body) return body;
  const schema = resolve(doc, operation.requestBody?.content?.['application/json']?.schema);
  const properties = (schema?.properties ?? {}) as Record<string, unknown>;
  return 'challenge' in properties ? { ...body, challenge: '{{challengeToken}}' } : body;
}

/** Path parameters as `{{variable}}`: Postman fills them from the collection's variables. */
function urlOf(path: string, operation: Operation) {
  const raw = path.replace(/\{([a-z_]+)\}/g, (_, param: string) => `{{${variableOf(path, param)}}}`);
  const query = (operation.parameters ?? [])
    .filter((p) => p.in === 'query' && p.required)
    .map((p) => ({ key: p.name, value: String(p.example ?? exampleOf({}, p.schema) ?? '') }));
  const segments = raw.split('/').filter(Boolean);
  return {
    raw: `{{baseUrl}}${raw}${query.length ? `?${query.map((q) => `${q.key}=${q.value}`).join('&')}` : ''}`,
    host: ['{{baseUrl}}'],
    path: segments,
    ...(query.length ? { query } : {}),
  };
}

function headersOf(operation: Operation, hasBody: boolean) {
  const headers: Array<{ key: string; value: string }> = [];
  const first = Object.keys(operation.security?.[0] ?? {})[0];
  if (first === 'serverKey') headers.push({ key: 'Authorization', value: 'Bearer {{serverKey}}' });
  if (first === 'publishableKey') {
    headers.push({ key: 'X-Api-Key', value: '{{publishableKey}}' }, { key: 'Origin', value: '{{origin}}' });
  }
  if ((operation.parameters ?? []).some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key')) {
    headers.push({ key: 'Idempotency-Key', value: '{{$guid}}' });
  }
  if (hasBody) headers.push({ key: 'Content-Type', value: 'application/json' });
  return headers;
}

/** Every answer is documented and no server error; a refusal is a problem; a record answered is kept for later requests. */
function testScript(method: string, path: string, operation: Operation, doc: Json): string[] {
  const documented = Object.keys(operation.responses ?? {});
  const captures = capturesFor(path, doc);
  const lines = [
    `pm.test('answers without a server error', () => pm.expect(pm.response.code).to.be.below(500));`,
    `pm.test('answers with a documented status', () => pm.expect(${JSON.stringify(documented)}).to.include(String(pm.response.code)));`,
    `if (pm.response.code >= 400) pm.test('a refusal is a problem', () => pm.expect(pm.response.headers.get('Content-Type')).to.include('application/problem+json'));`,
  ];
  if (captures.length) {
    lines.push(
      `if (pm.response.code < 300 && (pm.response.headers.get('Content-Type') || '').includes('json')) {`,
      `  const body = pm.response.json();`,
      `  const row = ${method === 'get' ? `(body.results || body.data || [])[0]` : 'body'};`,
      ...captures.map(
        // A localised value (a listing's slug in each language) is kept in its first language.
        ({ variable, field }) =>
          `  if (row && row.${field} !== undefined && ${method === 'get' ? `!pm.collectionVariables.get('${variable}')` : 'true'}) pm.collectionVariables.set('${variable}', String(typeof row.${field} === 'object' ? Object.values(row.${field})[0] : row.${field}));`,
      ),
      `}`,
    );
  }
  return lines;
}

export function buildCollection(doc: Json): Json {
  const folders = new Map<string, Json[]>();
  const variables = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
    for (const method of methods) {
      const operation = item[method];
      if (!operation) continue;
      for (const match of path.matchAll(/\{([a-z_]+)\}/g)) variables.add(variableOf(path, match[1] as string));
      const body = withChallenge(doc, operation, bodyOf(doc, operation));
      const request: Json = {
        method: method.toUpperCase(),
        header: headersOf(operation, body !== undefined),
        url: urlOf(path, operation),
      };
      if (body !== undefined)
        request.body = { mode: 'raw', raw: JSON.stringify(body, null, 2), options: { raw: { language: 'json' } } };
      const tag = operation.tags?.[0] ?? 'Other';
      if (!folders.has(tag)) folders.set(tag, []);
      folders.get(tag)?.push({
        name: operation.summary ?? `${method.toUpperCase()} ${path}`,
        request,
        event: [{ listen: 'test', script: { type: 'text/javascript', exec: testScript(method, path, operation, doc) } }],
      });
    }
  }
  const info = doc.info as { title: string; description?: string };
  return {
    info: {
      name: info.title,
      description:
        'Runnable as it is: set baseUrl (the company’s API host), serverKey (sk_…), publishableKey (pk_…), origin (an origin of that publishable key) and, for a production workspace, challengeToken (a Turnstile token). Record variables are set by the requests that create or list them.',
      schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    },
    item: [...folders].map(([name, item]) => ({ name, item })),
    variable: [
      { key: 'baseUrl', value: 'http://localhost:8787', type: 'string' },
      { key: 'serverKey', value: '', type: 'string' },
      { key: 'publishableKey', value: '', type: 'string' },
      { key: 'origin', value: 'http://localhost:3000', type: 'string' },
      { key: 'challengeToken', value: 'XXXX.DUMMY.TOKEN.XXXX', type: 'string' },
      ...[...variables].sort().map((key) => ({ key, value: '', type: 'string' })),
    ],
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({
    options: {
      spec: { type: 'string', default: 'openapi/openapi.json' },
      out: { type: 'string', default: 'collections/property-api.postman_collection.json' },
    },
  });
  const doc = JSON.parse(await readFile(values.spec, 'utf8')) as Json;
  await mkdir(dirname(values.out), { recursive: true });
  await writeFile(values.out, `${JSON.stringify(buildCollection(doc), null, 2)}\n`);
  console.log(`${values.spec} → ${values.out}`);
}

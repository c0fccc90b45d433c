import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { events, leases, maintenance, payments, pipelines, portals, statements, webhooks } from './collection-back-office';
import { bookings, catalogue, crm, forms, inbound } from './collection-front-office';
import { everyRequest, type Folder, type Step } from './collection-steps';

/**
 * The Postman collection (v2.1) of the public API, built from the checked-in OpenAPI document, the same file for the
 * same document (CI regenerates it and fails on a difference):
 *   tsx bin/collection.ts [--spec openapi/openapi.json] [--out collections/property-api.postman_collection.json]
 *
 * It is a run that proves something (test/e2e/collection.test.ts runs it with newman against `npm start`): the steps of
 * collection-front-office.ts and collection-back-office.ts, every operation of the document at least once, each record
 * created before it is read, changed or moved, each request's test expecting the one status it must answer on the demo
 * company. Every write sends a new `Idempotency-Key` (`{{$guid}}`), a publishable key goes with the `Origin` it was
 * made for, and the keys, the base URL and the records a request needs are collection variables: a record's
 * (`{{contacts_reference}}`, …) is set by the request that creates it (or, unset, by the first row of a list).
 */

type Json = Record<string, unknown>;
type Operation = {
  operationId?: string;
  summary?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: Json; example?: unknown }>;
  requestBody?: {
    content?: Record<string, { example?: unknown; examples?: Record<string, { value?: unknown }>; schema?: Json }>;
  };
  responses?: Record<string, { content?: Record<string, unknown> }>;
};

/** The folders, in the order a run takes them: the web enquiry before the CRM reads and works its lead. */
export const folders: Folder[] = [
  catalogue,
  forms,
  crm,
  inbound,
  bookings,
  leases,
  maintenance,
  pipelines,
  statements,
  portals,
  payments,
  events,
  webhooks,
];

/** What the user sets: the company's host and keys; an inbound channel's token and secrets; the feeds' token. */
export const settings: Array<[string, string]> = [
  ['baseUrl', 'http://localhost:8787'],
  ['serverKey', ''],
  ['publishableKey', ''],
  ['origin', 'http://localhost:3000'],
  ['challengeToken', 'XXXX.DUMMY.TOKEN.XXXX'],
  ['whatsappToken', ''],
  ['whatsappAppSecret', ''],
  ['whatsappVerifyToken', ''],
  ['propertyFinderToken', ''],
  ['propertyFinderSecret', ''],
  ['pricingSecret', ''],
  ['signedToken', ''],
  ['signedSecret', ''],
  ['einvoiceSecret', ''],
  ['feedToken', ''],
];

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
  const found: Array<{ variable: string; field: string }> = [];
  for (const other of Object.keys(doc.paths as Json)) {
    const match = other.match(/^(.*)\/\{([a-z_]+)\}$/);
    // The record's field has the parameter's name: `reference`, `slug`, `task_id`, …
    if (match && match[1] === path) found.push({ variable: variableOf(other, match[2] as string), field: match[2] as string });
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

function exampleOf(operation: Operation): unknown {
  const json = operation.requestBody?.content?.['application/json'];
  if (!json) return undefined;
  return json.example ?? Object.values(json.examples ?? {})[0]?.value;
}

/**
 * A browser form sent with a publishable key carries the spam check's token (`challenge`, Cloudflare Turnstile):
 * `{{challengeToken}}`, by default Turnstile's test token, which a development workspace (the demo company) accepts; a
 * production workspace needs a real widget's token.
 */
function withChallenge(doc: Json, operation: Operation, body: unknown): unknown {
  if (Object.keys(operation.security?.[0] ?? {})[0] !== 'publishableKey') return body;
  if (!body || typeof body !== 'object' || Array.isArray(body) || 'challenge' in body) return body;
  const schema = resolve(doc, operation.requestBody?.content?.['application/json']?.schema);
  return 'challenge' in ((schema?.properties ?? {}) as Json) ? { ...body, challenge: '{{challengeToken}}' } : body;
}

function urlOf(path: string, operation: Operation, step: Step) {
  const raw = path.replace(/\{([a-z_]+)\}/g, (_, param: string) => `{{${step.path?.[param] ?? variableOf(path, param)}}}`);
  const query = step.query
    ? Object.entries(step.query).map(([key, value]) => ({ key, value }))
    : (operation.parameters ?? [])
        .filter((p) => p.in === 'query' && p.required)
        .map((p) => ({ key: p.name, value: String(p.example ?? '') }));
  return {
    raw: `{{baseUrl}}${raw}${query.length ? `?${query.map((q) => `${q.key}=${q.value}`).join('&')}` : ''}`,
    host: ['{{baseUrl}}'],
    path: raw.split('/').filter(Boolean),
    ...(query.length ? { query } : {}),
  };
}

function headersOf(operation: Operation, step: Step, hasBody: boolean) {
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
  for (const [key, value] of Object.entries(step.headers ?? {})) headers.push({ key, value });
  return headers;
}

/** The status it must answer (with the documented media type), then the record it names kept for later requests. */
function testScript(method: string, path: string, operation: Operation, step: Step, doc: Json): string[] {
  const media = Object.keys(operation.responses?.[String(step.expect)]?.content ?? {})[0];
  const lines = [
    `pm.test('answers ${step.expect}', () => pm.expect(pm.response.code, pm.response.text().slice(0, 500)).to.equal(${step.expect}));`,
  ];
  if (media) {
    lines.push(
      `pm.test('answers ${media}', () => pm.expect(pm.response.headers.get('Content-Type') || '').to.include('${media}'));`,
    );
  }
  const captures = step.capture === false ? [] : capturesFor(path, doc);
  if (captures.length && media === 'application/json') {
    lines.push(
      'if (pm.response.code < 300) {',
      `  const record = ${method === 'get' ? '(pm.response.json().results || [])[0]' : 'pm.response.json()'};`,
      ...captures.map(
        // A localised value (a listing's slug in each language) is kept in its first language. A list sets a variable
        // no create has set.
        ({ variable, field }) =>
          `  if (record && record.${field} !== undefined${method === 'get' ? ` && !pm.collectionVariables.get('${variable}')` : ''}) pm.collectionVariables.set('${variable}', String(typeof record.${field} === 'object' ? Object.values(record.${field})[0] : record.${field}));`,
      ),
      '}',
    );
  }
  return [...lines, ...(step.after ?? [])];
}

/** Every operation of the document, by operationId. */
function operationsOf(doc: Json) {
  const found = new Map<string, { method: string; path: string; operation: Operation }>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
    for (const method of methods) {
      const operation = item[method];
      if (operation?.operationId) found.set(operation.operationId, { method, path, operation });
    }
  }
  return found;
}

/** The run, checked against the document: each step's operation exists and its status is a documented success. */
export function collectionPlan(doc: Json) {
  const operations = operationsOf(doc);
  const named = new Set(folders.flatMap((folder) => folder.steps.map((step) => step.operation)));
  const unplaced = [...operations.keys()].filter((id) => !named.has(id));
  if (unplaced.length) throw new Error(`No step of bin/collection-*-office.ts runs ${unplaced.join(', ')}: place it.`);
  return folders.map((folder) => ({
    folder,
    steps: folder.steps.map((step) => {
      const found = operations.get(step.operation);
      if (!found) throw new Error(`The document has no operation ${step.operation}.`);
      const documented = Object.keys(found.operation.responses ?? {});
      if (!documented.includes(String(step.expect)) || step.expect >= 400) {
        throw new Error(`${step.operation} expects ${step.expect}, not a documented success (${documented.join(', ')}).`);
      }
      return { ...found, step, name: step.name ?? found.operation.summary ?? step.operation };
    }),
  }));
}

export function buildCollection(doc: Json): Json {
  const variables = new Set<string>();
  const item = collectionPlan(doc).map(({ folder, steps }) => ({
    name: folder.name,
    ...(folder.description ? { description: folder.description } : {}),
    item: steps.map(({ method, path, operation, step, name }) => {
      for (const match of path.matchAll(/\{([a-z_]+)\}/g)) {
        variables.add(step.path?.[match[1] as string] ?? variableOf(path, match[1] as string));
      }
      const body = withChallenge(doc, operation, step.body ?? exampleOf(operation));
      const request: Json = {
        method: method.toUpperCase(),
        header: headersOf(operation, step, body !== undefined),
        url: urlOf(path, operation, step),
      };
      if (body !== undefined) {
        request.body = { mode: 'raw', raw: JSON.stringify(body, null, 2), options: { raw: { language: 'json' } } };
      }
      const event = [
        { listen: 'test', script: { type: 'text/javascript', exec: testScript(method, path, operation, step, doc) } },
      ];
      if (step.before) event.unshift({ listen: 'prerequest', script: { type: 'text/javascript', exec: step.before } });
      return { name, request, event };
    }),
  }));
  const info = doc.info as { title: string };
  const user = new Set(settings.map(([key]) => key));
  return {
    info: {
      name: info.title,
      description:
        'A run of every operation on the demo company of `npm start`, in order, each request expecting its status: set baseUrl (the company’s API host), serverKey (sk_… with every scope), publishableKey (pk_…), origin (an origin of that publishable key), the inbound channels’ tokens and secrets (folder Inbound), feedToken (folder Portals) and, for a production workspace, challengeToken (a Turnstile token). Record variables are set by the requests that create them; dates are computed at run time.',
      schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    },
    item,
    event: [{ listen: 'prerequest', script: { type: 'text/javascript', exec: everyRequest } }],
    variable: [
      ...settings.map(([key, value]) => ({ key, value, type: 'string' })),
      ...[...variables]
        .filter((key) => !user.has(key))
        .sort()
        .map((key) => ({ key, value: '', type: 'string' })),
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

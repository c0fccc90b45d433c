import type { OpenAPIHono } from '@hono/zod-openapi';
import pluralize from 'pluralize';
import type { Access } from '../schema/common/scopes';
import { declareApiVersion } from './versions';

/**
 * What the published OpenAPI documents add to the routes' own declarations: operation ids derived from the
 * method and path, a sentence on who may call each operation, the security schemes, servers, contact, tags,
 * and no component that no operation uses (docs/api-reference.md, "The OpenAPI document").
 */

const camel = (words: string[]): string =>
  words.map((word, i) => (i === 0 ? word.toLowerCase() : word.charAt(0).toUpperCase() + word.slice(1))).join('');
const wordsOf = (segment: string): string[] => segment.split('-');
const singularWords = (segment: string): string[] => {
  const words = wordsOf(segment);
  return [...words.slice(0, -1), pluralize.singular(words.at(-1) ?? '')];
};
const isParam = (segment: string): boolean => segment.startsWith('{');
const isCollection = (segment: string): boolean => {
  const last = wordsOf(segment).at(-1) ?? '';
  return pluralize.isPlural(last) && pluralize.singular(last) !== last;
};

/**
 * The operation id of a route, from its method and path (relative to /api/v1 or /admin/v1): `listListings`,
 * `getListing`, `createLead`, `updateContact`, `activateLease`, `getListingAvailability`. Records named by a
 * parameter read in the singular; a last segment that is no collection after a record is an action (POST) or
 * a part of it (GET, PUT). A route whose derived name reads badly declares its own `operationId`.
 */
export function operationIdOf(method: string, path: string): string {
  const segments = path.split('/').filter(Boolean);
  const last = segments.at(-1) ?? '';
  // A static segment followed by a parameter names one record of a collection.
  const nouns = (upTo: number): string[] =>
    segments
      .slice(0, upTo)
      .flatMap((segment, i) =>
        isParam(segment) ? [] : isParam(segments[i + 1] ?? '') ? singularWords(segment) : wordsOf(segment),
      );
  if (isParam(last)) {
    const verb = { get: 'get', patch: 'update', put: 'set', delete: 'delete' }[method] ?? method;
    return camel([verb, ...nouns(segments.length)]);
  }
  const before = nouns(segments.length - 1);
  if (method === 'get') return camel([isCollection(last) ? 'list' : 'get', ...before, ...wordsOf(last)]);
  if (method === 'put') return camel(['set', ...before, ...wordsOf(last)]);
  if (method === 'post' && isCollection(last)) return camel(['create', ...before, ...singularWords(last)]);
  if (method === 'post') {
    // An action on a record: its verb first, then the record, then the rest (`rotate-secret`, `mark-paid`).
    const [verb = method, ...rest] = wordsOf(last);
    return camel([verb, ...before, ...rest]);
  }
  return camel([method, ...before, ...wordsOf(last)]);
}

const code = (values: readonly string[]): string => values.map((v) => `\`${v}\``).join(' or ');

/** Who may call an operation, in words: the scopes a bearer scheme cannot carry in OpenAPI (also `x-scopes`). */
export function accessSentence(access: Access): string {
  switch (access.kind) {
    case 'public':
      return access.scopes.length > 0
        ? `**Access:** no key needed. A server key may be sent instead (\`Authorization: Bearer sk_…\`); it must hold ${code(access.scopes)} and is then limited per key rather than per address.`
        : '**Access:** no key needed.';
    case 'server':
      return `**Access:** a server key (\`Authorization: Bearer sk_…\`) holding ${code(access.scopes)}.`;
    case 'form':
      return access.scopes.length > 0
        ? `**Access:** a publishable key (\`X-Api-Key: pk_…\`) from a page on one of the key's origins, or a server key holding ${code(access.scopes)} (a company's server sending on its own behalf).`
        : "**Access:** a publishable key (`X-Api-Key: pk_…`) from a page on one of the key's origins.";
    case 'admin':
      return "**Access:** the platform operator's admin token (`Authorization: Bearer …`).";
    case 'qstash':
      return '**Access:** a QStash callback, signed with `Upstash-Signature`.';
    case 'inbound':
      return "**Access:** no key: the path's secret token names the company's inbound channel, and the source's signature of the raw body is checked (see the operation).";
    case 'page':
      return "**Access:** no key: the path's secret token opens the page, on its company's host only.";
  }
}

/** The security requirements of an access kind. Scopes are not listed on the bearer scheme: see `x-scopes`. */
export function securityOf(access: Access): Array<Record<string, string[]>> {
  switch (access.kind) {
    case 'public':
      return [{}, { serverKey: [] }];
    case 'server':
      return [{ serverKey: [] }];
    case 'form':
      return access.scopes.length > 0 ? [{ publishableKey: [] }, { serverKey: [] }] : [{ publishableKey: [] }];
    case 'admin':
      return [{ adminToken: [] }];
    case 'qstash':
      return [{ qstashSignature: [] }];
    case 'inbound':
    case 'page':
      return [{}];
  }
}

/** The document's tags: one per route group (and the events a subscriber receives), in this order. */
const tags = [
  { name: 'Catalogue', description: 'Published listings, areas, filters, team, sitemap and services: public reads, no key.' },
  {
    name: 'Listings',
    description:
      'An integration’s own listings (server key, `write:listings`): created, replaced, published and withdrawn under its ids.',
  },
  { name: 'CRM', description: 'People, leads, activities, tasks, members and departments for a CRM sync (server key).' },
  { name: 'Forms', description: "Enquiries sent from the visitor's browser (publishable key) or a company's server." },
  {
    name: 'Saved searches',
    description:
      "A visitor's saved listing searches: the form (publishable key), and their links, matches and stop for the company's CRM (server key).",
  },
  {
    name: 'Inbound',
    description:
      'Receivers a company points WhatsApp, Property Finder and signed senders at: leads made as the forms make them, verified and never twice.',
  },
  { name: 'Bookings', description: "A holiday home's availability and price, and booking requests from the visitor's browser." },
  { name: 'Leases', description: 'Leases and their rent payments (server key).' },
  { name: 'Maintenance', description: 'Jobs, charges, contractors and inspections (server key).' },
  { name: 'Pipelines', description: 'Pipelines, deals and viewings (server key).' },
  {
    name: 'Webhooks',
    description:
      'Webhook endpoints an integration subscribes itself, their signing secrets, deliveries and recovery (server key).',
  },
  {
    name: 'Statements',
    description: 'What each owner is owed, month by month, and the accounting journal of a month (server key).',
  },
  {
    name: 'Portals',
    description: 'Property Finder and Bayut/dubizzle XML feeds (secret token URLs) and the portal check (server key).',
  },
  {
    name: 'Payments',
    description:
      "The payment providers' webhook receiver (Stripe): a payment's outcome read back from the provider, acted on once.",
  },
  { name: 'Events', description: 'The webhooks a subscriber receives: thin, signed events (Standard Webhooks).' },
  {
    name: 'Admin',
    description: "The platform operator's API: companies, keys, catalogue, webhooks and each group's staff work.",
  },
];

type Registry = OpenAPIHono['openAPIRegistry'];

export function registerSecuritySchemes(registry: Registry): void {
  registry.registerComponent('securitySchemes', 'serverKey', {
    type: 'http',
    scheme: 'bearer',
    description:
      'A server key (`sk_…`), from a server only. Each operation names the scopes it needs in its description and in `x-scopes`; a key without one of them is refused with 403 `scope_missing`.',
  });
  registry.registerComponent('securitySchemes', 'publishableKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Api-Key',
    description: "A publishable key (`pk_…`), sent by a page on one of the key's origins.",
  });
  registry.registerComponent('securitySchemes', 'adminToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'The platform operator’s admin token.',
  });
}

type Document = ReturnType<OpenAPIHono['getOpenAPI31Document']>;
type Components = NonNullable<Document['components']>;

/** Every `#/components/<kind>/<name>` a value refers to, directly or through the components it names. */
function usedComponents(start: unknown, components: Components): Set<string> {
  const used = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/') && !used.has(value)) {
        used.add(value);
        const [kind = '', name = ''] = value.slice('#/components/'.length).split('/');
        walk((components as Record<string, Record<string, unknown> | undefined>)[kind]?.[name]);
      } else walk(value);
    }
  };
  walk(start);
  return used;
}

/** Drops the components (schemas, parameters, security schemes) that nothing in the document uses. */
function pruneComponents(doc: Document): void {
  const components = (doc.components ?? {}) as Record<string, Record<string, unknown> | undefined>;
  const used = usedComponents({ paths: doc.paths, webhooks: doc.webhooks }, doc.components ?? {});
  const operations = [...Object.values(doc.paths ?? {}), ...Object.values(doc.webhooks ?? {})].flatMap((item) =>
    Object.values(item ?? {}),
  );
  for (const operation of operations) {
    for (const requirement of (operation as { security?: Record<string, unknown>[] }).security ?? []) {
      for (const scheme of Object.keys(requirement)) used.add(`#/components/securitySchemes/${scheme}`);
    }
  }
  for (const [kind, entries] of Object.entries(components)) {
    for (const name of Object.keys(entries ?? {})) {
      if (!used.has(`#/components/${kind}/${name}`)) delete entries?.[name];
    }
    if (Object.keys(entries ?? {}).length === 0) delete components[kind];
  }
}

export type DocumentInfo = { title: string; version: string; description: string };

/**
 * One published document: the app's operations under `prefix` (the public API's with the events a subscriber
 * receives, or the admin API's), served relative to the host it is read from (each company's own host).
 */
export function publishedDocument(app: Pick<OpenAPIHono, 'getOpenAPI31Document'>, prefix: string, info: DocumentInfo): Document {
  const doc = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      ...info,
      // Each company answers for its own host; the document names no one address for all of them.
      contact: { name: 'The API support of the company whose host serves this document' },
    },
    servers: [
      {
        url: '/',
        description:
          'The host this document is read from. Each company has its own API host(s) and a key works only on its company’s host.',
      },
    ],
  });
  doc.paths = Object.fromEntries(Object.entries(doc.paths ?? {}).filter(([path]) => path.startsWith(prefix)));
  if (prefix !== '/api/v1/') delete doc.webhooks;
  const used = new Set(
    [...Object.values(doc.paths), ...Object.values(doc.webhooks ?? {})].flatMap((item) =>
      Object.values(item ?? {}).flatMap((operation) => (operation as { tags?: string[] }).tags ?? []),
    ),
  );
  doc.tags = tags.filter((tag) => used.has(tag.name));
  // Every operation takes the `Api-Version` header and every answer carries it (lib/versions.ts).
  declareApiVersion(doc as Parameters<typeof declareApiVersion>[0]);
  pruneComponents(doc);
  return doc;
}

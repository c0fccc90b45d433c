import type { Context, MiddlewareHandler } from 'hono';
import type { ApiKeyRow } from '../schema/platform/db';
import type { AppEnv } from './env';
import { ApiError } from './errors';
import { addAnswerHeaders } from './security-headers';

/**
 * Dated API versions (docs/api-reference.md, "API versions (issue 38)"), after Stripe's: a version is the date it
 * shipped; a key is pinned at creation to the current one; a request's `Api-Version` header overrides the pin for that
 * request; every answer says in the same header the version it was served at. The code answers at the newest version;
 * a route whose answer a version changed asks {@link servedSince} and answers as before for a request served earlier.
 *
 * The one place where versions are declared, each with what it changed (the changelog names the same).
 */
export const apiVersions = [
  { version: '2026-11-29', changes: [] },
  {
    version: '2026-11-30',
    changes: [
      {
        change: 'endpoint_deliveries_page_size_50',
        description:
          '`GET /api/v1/webhook-endpoints/{endpoint_id}/deliveries` answers 50 deliveries a page when `page_size` is not given (was 20).',
      },
    ],
  },
] as const;

export type ApiVersion = (typeof apiVersions)[number]['version'];
export type VersionChange = (typeof apiVersions)[number]['changes'][number]['change'];

/** The first version: the keys made before versions existed are pinned to it. */
export const firstVersion: ApiVersion = apiVersions[0].version;
/** The newest version: a new key is pinned to it, and an unkeyed request without the header is served at it. */
export const currentVersion: ApiVersion = apiVersions[apiVersions.length - 1]!.version;

const known = new Set<string>(apiVersions.map((v) => v.version));

export function isApiVersion(value: string): value is ApiVersion {
  return known.has(value);
}

/** The version a change shipped in. */
function versionOf(change: VersionChange): ApiVersion {
  return apiVersions.find((v) => v.changes.some((c) => c.change === change))!.version;
}

/** The problem of a malformed or unknown version, at the field (the header, or a body's `api_version`). */
export function unknownVersion(path: string, value: string): ApiError {
  const shaped = /^\d{4}-\d{2}-\d{2}$/.test(value);
  return new ApiError('invalid_request', `The API version ${JSON.stringify(value.slice(0, 40))} is not one of ours.`, {
    errors: [
      {
        path,
        code: shaped ? 'unknown_version' : 'invalid_format',
        message: `${shaped ? 'No version has this date' : 'A version is a date, YYYY-MM-DD'}; the versions are ${[...known].join(', ')}.`,
      },
    ],
  });
}

/**
 * Every answer may differ by the version it is served at (its `Api-Version` header at least), so each says so to shared
 * caches: `Vary: Api-Version` by default; a route that sets its own `Vary` names it too.
 */
export const versionVary = 'Api-Version';

function serveAt(c: Context<AppEnv>, version: ApiVersion): void {
  c.set('apiVersion', version);
  addAnswerHeaders(c, { 'Api-Version': version });
}

/**
 * The version of every request, at the root (after lib/security-headers.ts gathered the answer's headers): the
 * `Api-Version` header's, else the current one until a key's pin says otherwise ({@link pinnedVersion}). A malformed
 * or unknown version is a 400 `invalid_request` at `Api-Version`, whose answer is served at the current version.
 */
export function apiVersionMiddleware(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    addAnswerHeaders(c, { Vary: versionVary });
    const asked = c.req.header('Api-Version');
    if (asked === undefined) {
      serveAt(c, currentVersion);
      return next();
    }
    const version = asked.trim();
    if (!isApiVersion(version)) {
      serveAt(c, currentVersion);
      throw unknownVersion('Api-Version', asked);
    }
    c.set('versionAsked', true);
    serveAt(c, version);
    await next();
  };
}

/** Once a request's key is known: served at the key's pin, unless the request asked for a version itself. */
export function pinnedVersion(c: Context<AppEnv>, key: Pick<ApiKeyRow, 'api_version'>): void {
  if (c.get('versionAsked')) return;
  if (isApiVersion(key.api_version)) serveAt(c, key.api_version);
}

/** Whether the request is served at a version that has `change` (the newest behaviour); false: answer as before it. */
export function servedSince(c: Context<AppEnv>, change: VersionChange): boolean {
  const at = c.get('apiVersion') ?? currentVersion;
  return at >= versionOf(change);
}

type Operation = { parameters?: unknown[]; responses?: Record<string, { headers?: Record<string, unknown> }> };
type Doc = { paths?: Record<string, Record<string, unknown> | undefined>; components?: Record<string, unknown> };

/**
 * Declares the header in a published OpenAPI document: the `Api-Version` request parameter of every operation and the
 * `Api-Version` header of every answer (components, referred to from each).
 */
export function declareApiVersion(doc: Doc): void {
  doc.components ??= {};
  const components = doc.components as Record<string, Record<string, unknown> | undefined>;
  const values = [...known];
  components.parameters = {
    ...components.parameters,
    ApiVersion: {
      name: 'Api-Version',
      in: 'header',
      required: false,
      description: `The API version to answer at, for this request only (a date, YYYY-MM-DD): ${values.join(', ')}. Without it, a key's pinned version (set when the key was made); without a key, the newest. Unknown: 400.`,
      schema: { type: 'string', enum: values, example: currentVersion },
    },
  };
  components.headers = {
    ...components.headers,
    ApiVersion: {
      description: 'The API version this answer was served at.',
      schema: { type: 'string', enum: values },
    },
  };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(item ?? {}) as Operation[]) {
      if (typeof operation !== 'object' || operation === null || !operation.responses) continue;
      operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/ApiVersion' }];
      for (const response of Object.values(operation.responses)) {
        if ('$ref' in response) continue;
        response.headers = { ...response.headers, 'Api-Version': { $ref: '#/components/headers/ApiVersion' } };
      }
    }
  }
}

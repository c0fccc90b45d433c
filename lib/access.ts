import { createRoute, type RouteConfig } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { sha256 } from './crypto';
import type { AppEnv, Caller, KeyRead } from './env';
import { ApiError } from './errors';
import { touchKey, verifyKey } from './keys';
import { type RatePolicy, rateLimitHeaders } from './ratelimit/index';
import type { Access } from '../schema/common/scopes';
import { isLocalOrigin } from './addresses';
import { resolveCompany } from './tenancy';
import type { Company } from '../schema/platform/db';
import type { LeadType } from '../schema/common/scopes';
import { idempotency } from './idempotency';
import { preconditions, type VersionedRecord } from './preconditions';
import { notModifiedResponse, problemResponses, requestHeaders, versionedResponses } from '../schema/common/api';
import { accessSentence, operationIdOf, securityOf } from './openapi';
import type { Config } from './config';
import { addAnswerHeaders } from './security-headers';
import { pinnedVersion } from './versions';

export type { Access };

/** A server key sent in X-Api-Key (where publishable keys go) is refused with a code that says where it belongs. */
function apiKeyHeader(c: Context<AppEnv>): string | undefined {
  const value = c.req.header('X-Api-Key');
  if (value?.startsWith('sk_')) {
    throw new ApiError('key_wrong_header', 'A server key is sent as "Authorization: Bearer sk_…", never in X-Api-Key.');
  }
  return value;
}

function bearer(c: Context<AppEnv>): string | undefined {
  const header = c.req.header('Authorization');
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw new ApiError('key_invalid', 'The Authorization header must be "Bearer <key>".');
  // The reverse of apiKeyHeader's mistake, refused alike (a browser's key never travels as a bearer token).
  if (match[1].startsWith('pk_')) {
    throw new ApiError(
      'key_wrong_header',
      'A publishable key is sent in the X-Api-Key header, never as "Authorization: Bearer".',
    );
  }
  return match[1];
}

async function resolveCaller(
  c: Context<AppEnv>,
  access: Extract<Access, { kind: 'public' | 'server' | 'form' }>,
): Promise<Caller> {
  // The key is handed to the company's lookup so both can be read in one statement; a malformed key header is
  // refused below, once the host is known to belong to a company (an unknown host is said first).
  let sent: string | undefined;
  try {
    sent = bearer(c) ?? apiKeyHeader(c);
  } catch {
    sent = undefined;
  }
  const company = await resolveCompany(c, sent);
  const presented = bearer(c) ?? apiKeyHeader(c);
  if (presented === undefined) {
    if (access.kind === 'public') return { kind: 'anonymous' };
    if (access.kind === 'form') {
      throw new ApiError('key_required', 'A form needs its publishable key in the X-Api-Key header.');
    }
    throw new ApiError('key_required', 'This operation needs a server key: send "Authorization: Bearer sk_…".');
  }
  const { db, companyCache, now: clock } = c.get('services');
  const now = clock();
  // Node keeps keys in memory until the database announces a change to them (revocation is seen at once).
  const key = await verifyKey(db, presented, { now, cache: companyCache, read: c.get('keyRead') as KeyRead | undefined });
  if (key.company_id !== company.id) {
    throw new ApiError('key_wrong_company', 'The key belongs to another company than this host.');
  }
  // Its answers, refusals included, are served at the key's pinned version unless the request names one.
  pinnedVersion(c, key);
  if (key.kind === 'publishable') {
    if (access.kind !== 'form') {
      throw new ApiError('key_wrong_kind', 'A publishable key only sends enquiry and booking forms; it reads nothing.');
    }
    const origin = allowedOrigin(c.req.header('Origin'), key.origins, company);
    await touchKey(db, key, now);
    return { kind: 'publishable', key, origin };
  }
  if (access.kind === 'form' && access.scopes.length === 0) {
    throw new ApiError('key_wrong_kind', "This form is sent from the visitor's browser with a publishable key.");
  }
  if (!access.scopes.some((scope) => key.scopes.includes(scope))) {
    throw new ApiError('scope_missing', `The key lacks the scope this operation needs: ${access.scopes.join(' or ')}.`);
  }
  await touchKey(db, key, now);
  return { kind: 'server', key };
}

type Policies = Record<'anonymous' | 'server' | 'publishable', RatePolicy>;
/** The limits of a configuration, made once (a request only picks one). */
const policiesOf = new WeakMap<Config, Policies>();

function policies(config: Config): Policies {
  let made = policiesOf.get(config);
  if (!made) {
    const minute = 60;
    made = {
      anonymous: { name: 'anonymous', limit: config.RATE_LIMIT_ANONYMOUS_PER_MINUTE, windowSeconds: minute },
      server: { name: 'server_key', limit: config.RATE_LIMIT_SERVER_KEY_PER_MINUTE, windowSeconds: minute },
      publishable: { name: 'publishable_key', limit: config.RATE_LIMIT_PUBLISHABLE_KEY_PER_MINUTE, windowSeconds: minute },
    };
    policiesOf.set(config, made);
  }
  return made;
}

function policyFor(c: Context<AppEnv>, caller: Caller): { policy: RatePolicy; identifier: string } | undefined {
  const { config, clientAddress } = c.get('services');
  switch (caller.kind) {
    case 'anonymous':
      return { policy: policies(config).anonymous, identifier: `${c.get('company').id}:${clientAddress}` };
    case 'server':
    case 'publishable':
      return { policy: policies(config)[caller.kind], identifier: caller.key.id };
    case 'admin':
    case 'system':
      return undefined;
  }
}

/** Counted only after the key is known to be valid, so a wrong key never uses up anyone's limit. */
async function enforceRateLimit(c: Context<AppEnv>, caller: Caller): Promise<void> {
  const applied = policyFor(c, caller);
  if (!applied) return;
  const decision = await c.get('services').limiter.limit(applied.policy, applied.identifier);
  const headers = rateLimitHeaders(applied.policy, decision);
  if (!decision.success) {
    throw new ApiError('rate_limited', 'Too many requests; retry after the time in Retry-After.', { headers });
  }
  addAnswerHeaders(c, headers);
}

async function requireAdmin(c: Context<AppEnv>): Promise<void> {
  const token = bearer(c);
  if (!token) throw new ApiError('admin_token_invalid', 'The admin API needs "Authorization: Bearer <admin token>".');
  const { db } = c.get('services');
  const row = await db
    .selectFrom('admin_tokens')
    .select('id')
    .where('token_hash', '=', await sha256(token))
    .executeTakeFirst();
  if (!row) throw new ApiError('admin_token_invalid');
}

/**
 * The request's `Origin` when it is one of the key's exact origins, or a 403. A localhost origin counts only
 * on a development workspace, even when a key lists it.
 */
function allowedOrigin(origin: string | undefined, origins: readonly string[], company: Company): string {
  if (!origin || origin === 'null') {
    throw new ApiError('origin_not_allowed', 'A publishable key is used only from a web page: the Origin header is missing.');
  }
  if (!origins.includes(origin) || (isLocalOrigin(origin) && company.environment !== 'development')) {
    throw new ApiError('origin_not_allowed', `The key may not be used from ${origin}.`);
  }
  return origin;
}

/** Whether a form may be sent from a page in the browser for this lead type (enquiry, listing_request, booking). */
export function requireLeadType(caller: Caller, leadType: LeadType): void {
  if (caller.kind === 'publishable' && !caller.key.lead_types.includes(leadType)) {
    throw new ApiError('lead_type_not_allowed', `The key may not send ${leadType.replace('_', ' ')} forms.`);
  }
}

export function accessMiddleware(access: Access): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // The platform's answer headers depend on it (lib/security-headers.ts: no-store).
    c.set('access', access);
    if (access.kind === 'admin') {
      await requireAdmin(c);
      c.set('caller', { kind: 'admin' });
    } else if (access.kind === 'qstash') {
      // The runtime's check (lib/webhooks/receiver.ts), so a Worker without callbacks bundles no QStash client.
      const { config, webhooks } = c.get('services');
      if (!webhooks.verifyCallback) throw new ApiError('signature_invalid', 'This deployment takes no QStash callbacks.');
      const signature = c.req.header('Upstash-Signature');
      await webhooks.verifyCallback(config, { signature, body: await c.req.text(), path: c.req.path, url: c.req.url });
      c.set('caller', { kind: 'system' });
    } else if (access.kind === 'page') {
      // The page finds its company by the host and checks the token itself (lib/pages.ts): an unknown one is its own
      // 404 page, never a problem document.
      c.set('caller', { kind: 'anonymous' });
    } else if (access.kind === 'inbound') {
      // The company from the host; the receiver checks the token and the source's signature (functions/forms/inbound.ts).
      await resolveCompany(c);
      const caller: Caller = { kind: 'anonymous' };
      c.set('caller', caller);
      await enforceRateLimit(c, caller);
    } else {
      const caller = await resolveCaller(c, access);
      c.set('caller', caller);
      await enforceRateLimit(c, caller);
    }
    await next();
  };
}

const writes = new Set(['post', 'patch']);

/**
 * Defines a route with its access declaration. The access check runs before validation, so an
 * unauthorised caller learns nothing about the input rules; `after` middleware runs once the caller is known.
 * Every POST and PATCH of the public API takes an `Idempotency-Key`; a route on one record that declares it
 * `versioned` gives its version as `ETag` and honours `If-Match` (lib/idempotency.ts, lib/preconditions.ts); one that
 * answers conditional GETs (`revalidate`) documents `If-None-Match` and its 304.
 */
export function defineRoute<const R extends Omit<RouteConfig, 'middleware' | 'security'>>(
  config: R & {
    access: Access;
    after?: MiddlewareHandler<AppEnv>[];
    /** The one record the route reads or changes, whose version is its ETag and is checked against If-Match. */
    versioned?: VersionedRecord;
    revalidate?: boolean;
  },
) {
  const { access, after = [], versioned: record, revalidate = false, ...route } = config;
  // A source's own message ids make an inbound delivery safe to retry; it sends no Idempotency-Key.
  const retriable = writes.has(route.method) && !['admin', 'qstash', 'inbound'].includes(access.kind);
  const write = route.method !== 'get' && route.method !== 'head';
  const platform = [...(retriable ? [idempotency()] : []), ...(record ? [preconditions(record)] : [])];
  const headers = requestHeaders({ idempotency: retriable, ifMatch: record !== undefined && write, ifNoneMatch: revalidate });
  // The document names every operation and says who may call it (lib/openapi.ts); scopes also go in x-scopes.
  const scopes = 'scopes' in access && access.scopes.length > 0 ? { 'x-scopes': access.scopes } : {};
  return createRoute({
    ...route,
    operationId: route.operationId ?? operationIdOf(route.method, route.path),
    description: [route.description, accessSentence(access)].filter(Boolean).join('\n\n'),
    request: headers ? { ...route.request, headers } : route.request,
    security: securityOf(access),
    'x-access': access,
    ...scopes,
    middleware: [accessMiddleware(access), ...platform, ...after],
    responses: versionedResponses(
      {
        ...problemResponses(access, { idempotency: retriable, ifMatch: record !== undefined && write }),
        ...(revalidate ? notModifiedResponse : {}),
        ...route.responses,
      },
      record !== undefined,
    ),
  } as unknown as R & { middleware: MiddlewareHandler<AppEnv>[] });
}

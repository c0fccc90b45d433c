import { z } from '@hono/zod-openapi';
import { text } from './text';

export const ProblemSchema = z
  .object({
    type: z.string().url().openapi({ description: 'A page explaining the code (`/problems/{code}` by default).' }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().openapi({ description: 'Stable snake_case code; see the API reference for the list.' }),
    request_id: z.string(),
    errors: z
      .array(z.object({ path: z.string(), code: z.string(), message: z.string() }))
      .optional()
      .openapi({ description: 'For invalid input: one entry per offending field.' }),
    allowed: z.array(z.string()).optional().openapi({
      description:
        'For `invalid_transition`: the statuses the record may move to from its current one (empty from a final status).',
    }),
  })
  .openapi('Problem');

/** A problem+json answer of a route, for its `responses` (every failure has this one shape). */
export function problem(description: string) {
  return { description, content: { 'application/problem+json': { schema: ProblemSchema } } };
}

/** The error answers every route can give, by its access kind (merged into each route's responses). */
export function problemResponses(access: { kind: string }, headers: { idempotency?: boolean; ifMatch?: boolean } = {}) {
  const common = { 400: problem('Invalid input (`invalid_request`, `invalid_cursor`, `invalid_json`).') };
  if (access.kind === 'admin') return { ...common, 403: problem('Missing or invalid admin token.') };
  if (access.kind === 'qstash') return { ...common, 403: problem('Missing, forged or expired Upstash-Signature.') };
  // A page answers its own failures as pages (lib/pages.ts), declared with it.
  if (access.kind === 'page') return {};
  if (access.kind === 'inbound') {
    return {
      ...common,
      403: problem('Missing or wrong signature (or verify token), or a timestamp outside the tolerance (`signature_invalid`).'),
      404: problem('Unknown host, or no inbound channel of this kind has this token (a rotated token included).'),
      413: problem('The body is larger than the limit (`payload_too_large`).'),
      429: problem('Rate limited; see `Retry-After`.'),
    };
  }
  return {
    ...common,
    403: problem('Key unknown, revoked, of another company, of the wrong kind, or without the scope.'),
    404: problem('Unknown host or unknown record.'),
    ...(headers.idempotency
      ? {
          409: problem('A request with the same `Idempotency-Key` is still running (`idempotency_in_flight`).'),
          422: problem('The `Idempotency-Key` was used with another body (`idempotency_key_reused`).'),
        }
      : {}),
    ...(headers.ifMatch ? { 412: problem('The record changed since the version in `If-Match` (`precondition_failed`).') } : {}),
    429: problem('Rate limited; see `Retry-After`, `RateLimit` and `RateLimit-Policy`.'),
  };
}

const idempotencyKeyHeader = z.string().optional().openapi({
  description:
    'Makes the write safe to retry: the first answer is replayed for 24 hours to the same key and body (with `Idempotent-Replayed: true`). A random UUID per operation.',
  example: '5b0f8a52-7c1e-4c1e-9f57-3d4f4a3a9b10',
});
const ifMatchHeader = z.string().optional().openapi({
  description: 'The `ETag` of your last read: the write runs only if the record has not changed since (else 412).',
  example: '"v3"',
});

const ifNoneMatchHeader = z.string().optional().openapi({
  description: 'The `ETag` of your last answer: 304 with no body when nothing changed since.',
  example: 'W/"42-1-abc"',
});

/** The platform's request headers of a route (validated by the platform's middleware, documented here). */
export function requestHeaders(headers: { idempotency: boolean; ifMatch: boolean; ifNoneMatch?: boolean }) {
  if (!headers.idempotency && !headers.ifMatch && !headers.ifNoneMatch) return undefined;
  return z.object({
    ...(headers.idempotency ? { 'idempotency-key': idempotencyKeyHeader } : {}),
    ...(headers.ifMatch ? { 'if-match': ifMatchHeader } : {}),
    ...(headers.ifNoneMatch ? { 'if-none-match': ifNoneMatchHeader } : {}),
  });
}

/** The answer of a conditional GET whose `If-None-Match` matches: no body, the headers a 200 would carry. */
export const notModifiedResponse = {
  304: {
    description: 'Not modified: the `If-None-Match` matches the current `ETag`. No body.',
    headers: {
      ETag: { description: 'The answer’s version.', schema: { type: 'string' as const } },
      'Cache-Control': { description: 'As on the 200.', schema: { type: 'string' as const } },
    },
  },
};

/** A route on one versioned record: its successful answers carry the record's version as `ETag`. */
export function versionedResponses<T extends object>(responses: T, versioned: boolean): T {
  if (!versioned) return responses;
  const etag = { ETag: { description: 'The record’s version, for `If-Match`.', schema: { type: 'string' as const } } };
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) =>
      Number(status) < 300
        ? [status, { ...response, headers: { ...(response as { headers?: object }).headers, ...etag } }]
        : [status, response],
    ),
  ) as T;
}

export const LocalisedTextSchema = z
  .object({ en: z.string(), ar: z.string() })
  .openapi('LocalisedText', { description: 'Text per language; a language without text gives the English text.' });

export const LocalisedTextInput = z.object({ en: text().min(1).max(2000), ar: text().min(1).max(2000).optional() }).strict();

/**
 * Every calendar date and instant a request may carry lies in the years 1900 to 2999 (docs/api-reference.md,
 * "Dates and instants"). PostgreSQL has no year 0, JavaScript reads years below 100 as 19xx in some
 * constructors, and years past 9999 print as `+010000-…`; the bounds keep every derived date (a stay's nights,
 * availability's default year, hold and payment deadlines) far from all of these.
 */
export const firstDate = '1900-01-01';
export const lastDate = '2999-12-31';
const firstInstant = Date.parse(`${firstDate}T00:00:00Z`);
const endInstant = Date.parse('3000-01-01T00:00:00Z');
const outOfRange = { code: 'out_of_range' };

/** A calendar date `YYYY-MM-DD` (a real day: 2028-02-29 yes, 2027-02-29 no), from 1900-01-01 to 2999-12-31. */
export const calendarDate = z.iso
  .date({ error: 'A calendar date YYYY-MM-DD.', abort: true })
  .refine((d) => d >= firstDate && d <= lastDate, {
    message: `A date from ${firstDate} to ${lastDate}.`,
    params: outOfRange,
  })
  .openapi({ description: `A calendar date, YYYY-MM-DD, from ${firstDate} to ${lastDate}.`, example: '2026-11-28' });

/**
 * An instant: RFC 3339 with `Z` or an offset (`+14:00`, `-12:00`; a time without a zone is refused), at most
 * millisecond precision kept, normalised to UTC (`2026-11-21T05:30:00.000Z`); within the years 1900 to 2999 once in UTC.
 */
export const instant = z.iso
  .datetime({ offset: true, abort: true, error: 'An instant in ISO 8601 with Z or an offset, e.g. 2026-11-21T09:30:00Z.' })
  .refine(
    (v) => {
      const at = Date.parse(v);
      return at >= firstInstant && at < endInstant;
    },
    { message: `An instant from ${firstDate}T00:00:00Z to ${lastDate}T23:59:59.999Z.`, params: outOfRange },
  )
  .overwrite((v) => new Date(v).toISOString())
  .openapi({
    description: 'An instant, ISO 8601 with `Z` or an offset, in the years 1900 to 2999 (in UTC); read as UTC.',
    example: '2026-11-21T09:30:00Z',
  });

/** A whole number in a query string: plain decimal digits only (no sign, exponent, hex, spaces or point). */
export function queryInteger(min: number, max: number) {
  return text()
    .regex(/^[0-9]+$/, `A whole number from ${min} to ${max}, in plain digits.`)
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .openapi({ type: 'integer', minimum: min, maximum: max });
}

export const pageQuery = {
  page_size: queryInteger(1, 100).default(20).openapi({ description: 'Results per page, 1 to 100 (default 20).', example: 20 }),
  cursor: text().max(1000).optional().openapi({ description: 'The `next_cursor` of the previous page. Opaque.' }),
};

/** The query of a route that takes no parameters: any parameter is refused as `unknown_field`. */
export const noQuery = z.strictObject({});

/** Whether a path's id is a UUID: a record keyed by one is never found under anything else (404, not a 500). */
export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}

export function listOf<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      results: z.array(item),
      next_cursor: z.string().nullable().openapi({ description: 'Pass as `cursor` for the next page; null on the last.' }),
    })
    .openapi(name);
}

/** Query booleans: `true`/`false` or `1`/`0`. */
export const queryBoolean = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/**
 * Sync lists: `updated_since` (`external=<source>:<id>` is in schema/common/external.ts), and keyset pages
 * ordered by (updated_at, id), so a client paging while others write misses nothing that was committed (a row
 * changed behind the cursor comes back later with its new updated_at).
 */
export const syncQuery = {
  ...pageQuery,
  updated_since: instant
    .optional()
    .openapi({ description: 'Only records changed at or after this instant (ISO 8601, years 1900 to 2999).' }),
};

/** A JSON answer of a route, for its `responses`. */
export function json<T extends z.ZodType>(schema: T, description = 'OK') {
  return { description, content: { 'application/json': { schema } } };
}

/**
 * A required JSON body of a route, for its `request`. A write whose body `{}` does not satisfy gives a valid
 * `example`: the OpenAPI document shows it, and the shared access matrix sends it (a new route is covered as declared).
 */
export function jsonBody<T extends z.ZodType>(schema: T, example?: z.input<T>) {
  return { required: true, content: { 'application/json': example === undefined ? { schema } : { schema, example } } };
}

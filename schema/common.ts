import { z } from '@hono/zod-openapi';

export const ProblemSchema = z
  .object({
    type: z.string().url(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().openapi({ description: 'Stable snake_case code; see the API reference for the list.' }),
    request_id: z.string(),
    errors: z
      .array(z.object({ path: z.string(), code: z.string(), message: z.string() }))
      .optional()
      .openapi({ description: 'For invalid input: one entry per offending field.' }),
  })
  .openapi('Problem');

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ProblemSchema } },
});

/** The error answers every route can give, by its access kind (merged into each route's responses). */
export function problemResponses(access: { kind: string }, headers: { idempotency?: boolean; ifMatch?: boolean } = {}) {
  const common = { 400: problem('Invalid input (`invalid_request`, `invalid_cursor`, `invalid_json`).') };
  if (access.kind === 'admin') return { ...common, 403: problem('Missing or invalid admin token.') };
  if (access.kind === 'qstash') return { ...common, 403: problem('Missing, forged or expired Upstash-Signature.') };
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

/** The platform's request headers of a route (validated by the platform's middleware, documented here). */
export function requestHeaders(headers: { idempotency: boolean; ifMatch: boolean }) {
  if (!headers.idempotency && !headers.ifMatch) return undefined;
  return z.object({
    ...(headers.idempotency ? { 'idempotency-key': idempotencyKeyHeader } : {}),
    ...(headers.ifMatch ? { 'if-match': ifMatchHeader } : {}),
  });
}

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

export const LocalisedTextInput = z
  .object({ en: z.string().min(1).max(2000), ar: z.string().min(1).max(2000).optional() })
  .strict();

export const pageQuery = {
  page_size: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(20)
    .openapi({ description: 'Results per page, 1 to 100 (default 20).', example: 20 }),
  cursor: z.string().max(1000).optional().openapi({ description: 'The `next_cursor` of the previous page. Opaque.' }),
};

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

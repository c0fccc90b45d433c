import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ZodError } from 'zod';
import { storableText } from '../schema/common/text';
import { isUniqueViolation, isUnstorableText } from './db/index';
import type { AppEnv } from './env';
import { ApiError, type FieldError, problemBody } from './errors';
import { problemTypeBaseFor } from './problem-types';

/**
 * A request's failures as problems (application/problem+json, lib/errors.ts): invalid input as every route group's
 * validation hook words it, the errors Hono and the database raise for a client's mistake, and the answer itself.
 * The app (lib/app.ts) answers every failure through these.
 */

/** Zod issues as the problem body's `errors`: one entry per field, unknown parameters named one by one. */
export function fieldErrors(error: ZodError): FieldError[] {
  return error.issues.flatMap((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: path ? `${path}.${key}` : key,
        code: 'unknown_field',
        message: `Unknown field or parameter "${key}".`,
      }));
    }
    // A refinement may name its own code (e.g. `forbidden_key`) in params.
    const own = issue.code === 'custom' ? (issue.params as { code?: unknown } | undefined)?.code : undefined;
    return [{ path, code: typeof own === 'string' ? own : issue.code, message: issue.message }];
  });
}

/** What a validator hands its hook: the input's target and, on failure, zod's error. */
type ValidationResult = { target: string; success: true; data: unknown } | { target: string; success: false; error: ZodError };

/** Every route group's validation hook (lib/app.ts createRouter): every invalid input answers the same problem shape. */
export function validationHook(result: ValidationResult): void {
  const where = { query: 'query parameters', param: 'path parameters', json: 'request body fields' }[result.target as string];
  if (!result.success) {
    throw new ApiError('invalid_request', `The ${where ?? result.target} ${where ? 'are' : 'is'} invalid.`, {
      errors: fieldErrors(result.error),
    });
  }
  const broken = illFormedAt(result.data, '');
  if (broken !== undefined) {
    const message = 'Text must be well-formed Unicode (no lone surrogate) without U+0000.';
    throw new ApiError('invalid_request', `The ${where ?? result.target} ${where ? 'are' : 'is'} invalid.`, {
      errors: [{ path: broken, code: 'invalid_text', message }],
    });
  }
}

/**
 * The path of the first string (or key) of validated input that cannot be stored as sent (a lone surrogate, which JSON
 * may spell as `"\ud83d"`, or U+0000): the client's mistake (400), never a failure of ours. Every text field of a
 * schema is `text()` (schema/common/text.ts), which refuses it at the field; this is the same rule over what a schema
 * takes without a text type (record keys, `z.record`, untyped JSON).
 */
function illFormedAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return storableText(value) ? undefined : path;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (!storableText(key)) return at;
    const found = illFormedAt(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

export function problemResponse(c: Context<AppEnv>, error: ApiError): Response {
  const body = problemBody(error, c.get('requestId') ?? '', problemTypeBaseFor(c));
  for (const [name, value] of Object.entries(error.headers ?? {})) c.header(name, value);
  return c.body(JSON.stringify(body), error.status, { 'Content-Type': 'application/problem+json' });
}

export function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  // Hono's validators and body limit throw these for malformed requests: each is the client's mistake.
  if (err instanceof HTTPException) {
    if (err.status === 400) return new ApiError('invalid_json', 'The request body is not valid JSON.');
    if (err.status === 413) return new ApiError('payload_too_large');
    if (err.status === 415) return new ApiError('unsupported_media_type', 'Send the body as Content-Type: application/json.');
    if (err.status >= 400 && err.status < 500) return new ApiError('invalid_request', err.message);
  }
  if (isUniqueViolation(err)) return new ApiError('conflict', 'A record with the same unique value already exists.');
  if (isUnstorableText(err))
    return new ApiError('invalid_request', 'A text value contains a character that cannot be stored (U+0000).');
  return undefined;
}

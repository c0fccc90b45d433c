import type { Context } from 'hono';
import { toApiError } from '../../lib/request-errors';
import type { AppEnv } from '../../lib/env';
import { ApiError, problemBody } from '../../lib/errors';
import { problemTypeBaseFor } from '../../lib/problem-types';
import type { ImportProgress } from './content';

export const progressType = 'application/x-ndjson';

/**
 * Whether to answer an import as a progress stream: the client asked for NDJSON, and the runtime keeps the
 * request's database after the handler returns. A Worker closes its per-request pool once the handler has
 * returned (lib/app.ts), so there the import answers its counts at the end, as without the header.
 */
export function wantsProgress(c: Context<AppEnv>): boolean {
  if (!(c.req.header('Accept') ?? '').includes(progressType)) return false;
  try {
    void c.executionCtx;
    return false;
  } catch {
    return true; // no execution context: the Node server
  }
}

/**
 * Runs the import and streams one JSON object per line: `{"progress": …}` after each batch, then either
 * `{"result": counts}` once committed or `{"error": problem}` once rolled back. The status (200) and headers go
 * out before the import ends, so the outcome is the last line. A client that goes away leaves the import to
 * finish or fail on its own; lines it no longer reads are dropped.
 */
export function progressResponse(
  c: Context<AppEnv>,
  run: (onProgress: (progress: ImportProgress) => void) => Promise<Record<string, number>>,
): Response {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const encoder = new TextEncoder();
  const line = (value: unknown) => writer.write(encoder.encode(`${JSON.stringify(value)}\n`)).catch(() => {});
  void (async () => {
    try {
      const counts = await run((progress) => void line({ progress }));
      await line({ result: counts });
    } catch (error) {
      const known = toApiError(error);
      if (!known) console.error(`request ${c.var.requestId} failed:`, error);
      const problem = known ?? new ApiError('internal_error', 'Something went wrong on our side; quote the request id.');
      await line({ error: problemBody(problem, c.var.requestId ?? '', problemTypeBaseFor(c)) });
    } finally {
      await writer.close().catch(() => {});
    }
  })();
  return new Response(readable, { status: 200, headers: { 'Content-Type': progressType, 'Cache-Control': 'no-store' } });
}

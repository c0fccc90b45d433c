import { Webhook } from 'standardwebhooks';
import type { EventRow } from '../../schema/platform/db';
import { iso } from '../dates';
import { type Environment, guardedFetch, type Outbound } from '../outbound/guard';

/** The body of every delivery: the event envelope, serialised the same way on every attempt. */
export function eventBody(event: Pick<EventRow, 'id' | 'type' | 'created_at' | 'caused_by' | 'data'>): string {
  const { id, type, created_at, caused_by, data } = event;
  return JSON.stringify({ id, type, created_at: iso(created_at), caused_by, data });
}

/**
 * Standard Webhooks headers. `webhook-id` is the event id, the same on every retry and replay, so a subscriber
 * deduplicates with it. The signature is computed at send time (a retry days later is still inside the
 * subscriber's timestamp tolerance) with every live secret: during the 24 hours after a rotation the header
 * carries two space-separated `v1,` signatures, the new secret's first.
 */
export function signedHeaders(secrets: string[], id: string, at: Date, body: string, userAgent: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': userAgent,
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' '),
  };
}

/** An attempt: `refused` when the workspace's URL rules refused it (no connection was made; `error` says why). */
export type AttemptResult = { statusCode: number | null; durationMs: number; error: string | null; refused?: boolean };

/**
 * One POST through the outbound guard (lib/outbound/guard.ts: the URL checked, the connection made to the checked
 * addresses): a timeout (AbortSignal), redirects never followed (a 3xx is an answer, and a failure), the response body
 * discarded. A refused URL, network errors and timeouts come back as `error`, never thrown.
 */
export async function post(
  outbound: Outbound,
  environment: Environment,
  url: string,
  init: { headers: Record<string, string>; body: string; timeoutMs: number },
): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const sent = await guardedFetch(outbound, environment, url, {
      method: 'POST',
      headers: init.headers,
      body: init.body,
      signal: AbortSignal.timeout(init.timeoutMs),
    });
    if ('refused' in sent) return { statusCode: null, durationMs: 0, error: `URL refused: ${sent.refused}`, refused: true };
    await sent.response.body?.cancel().catch(() => {});
    return { statusCode: sent.response.status, durationMs: elapsed(), error: null };
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    const message = name === 'TimeoutError' || name === 'AbortError' ? `timed out after ${init.timeoutMs} ms` : describe(error);
    return { statusCode: null, durationMs: elapsed(), error: message };
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return `network error: ${String(error)}`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const detail = cause?.code ?? cause?.message ?? error.message;
  return `network error: ${detail}`.slice(0, 500);
}

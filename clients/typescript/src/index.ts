import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };

/** Every failure's body (`application/problem+json`): `code` is stable, `request_id` is worth logging. */
export type Problem = components['schemas']['Problem'];

/** The body of an operation's answer, by its `operationId` and status: `Answer<'getContact'>`. */
export type Answer<Id extends keyof operations, Status extends number = 200> =
  operations[Id]['responses'] extends Record<Status, { content: { 'application/json': infer Body } }> ? Body : never;

export type PropertyApiOptions = {
  /** The company's API host, e.g. `https://api.example-properties.com` (no `/api/v1`: the paths carry it). */
  baseUrl: string;
  /** A server key (`sk_…`), from a server only: sent as `Authorization: Bearer`. */
  serverKey?: string;
  /** A publishable key (`pk_…`), from a page on one of the key's origins: sent as `X-Api-Key`. */
  publishableKey?: string;
  /** More headers on every request. */
  headers?: Record<string, string>;
} & Omit<ClientOptions, 'baseUrl' | 'headers'>;

/**
 * A client of one company's API host. Calls are named by method and path, typed from the document:
 * `api.GET('/api/v1/contacts/{reference}', { params: { path: { reference } } })` gives `{ data }` or `{ error }`
 * (a Problem), and throws only when no answer came (network, CORS).
 *
 * A server key goes on every request. A publishable key goes only on POSTs: it sends forms and reads nothing
 * (a read carrying it is refused), and a read without a custom header needs no CORS preflight.
 */
export function createPropertyApiClient(options: PropertyApiOptions): Client<paths> {
  const { baseUrl, serverKey, publishableKey, headers, ...rest } = options;
  const client = createClient<paths>({
    ...rest,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { ...(serverKey ? { Authorization: `Bearer ${serverKey}` } : {}), ...headers },
  });
  if (publishableKey) {
    client.use({
      onRequest({ request }) {
        if (request.method === 'POST') request.headers.set('X-Api-Key', publishableKey);
        return request;
      },
    });
  }
  return client;
}

/** A failed call's problem, thrown by the helpers below: `status`, and the body's `code`, `detail` and `request_id`. */
export class ProblemError extends Error {
  readonly status: number;
  readonly problem: Problem | undefined;

  constructor(status: number, problem: Problem | undefined) {
    super(problem ? `${status} ${problem.code}: ${problem.detail} (request ${problem.request_id})` : `HTTP ${status}`);
    this.name = 'ProblemError';
    this.status = status;
    this.problem = problem;
  }
}

/** What an openapi-fetch call resolves with: `{ data }` or `{ error }`, and the response. */
type Called<Data> = { data?: Data; error?: unknown; response: Response };

/**
 * Every row of a list, page after page: the API's lists are cursor-paginated (`cursor` in, `next_cursor` out, null on
 * the last page). `page` asks for one page given the cursor (undefined for the first):
 *
 * ```ts
 * for await (const person of allPages((cursor) =>
 *   api.GET('/api/v1/contacts', { params: { query: { page_size: 100, cursor } } }))) console.log(person.reference);
 * ```
 *
 * A refused page throws a {@link ProblemError}.
 */
export async function* allPages<Row>(
  page: (cursor: string | undefined) => Promise<Called<{ results: Row[]; next_cursor?: string | null }>>,
): AsyncGenerator<Row, void, undefined> {
  let cursor: string | undefined;
  do {
    const { data, error, response } = await page(cursor);
    if (!data) throw new ProblemError(response.status, error as Problem | undefined);
    yield* data.results;
    cursor = data.next_cursor ?? undefined;
  } while (cursor);
}

export type RetryOptions = {
  /** Attempts after the first (default 3). */
  retries?: number;
  /** The key of every attempt (default: a new random UUID, the same for all attempts of this write). */
  idempotencyKey?: string;
  /**
   * Waits before attempt `attempt` (1 for the first retry); `retryAfter` is the answer's `Retry-After` in seconds, when
   * it sent one. Default: `Retry-After`, else 0.5 s, 1 s, 2 s, … (at most 30 s).
   */
  wait?: (attempt: number, retryAfter: number | undefined) => Promise<void>;
};

/** Answers worth the same request again: still running, rate limited, or a failure on the way or of the server. */
function retriable(status: number): boolean {
  return status === 409 || status === 429 || status >= 500;
}

const pause = (attempt: number, retryAfter: number | undefined) =>
  new Promise<void>((resolve) =>
    setTimeout(resolve, retryAfter !== undefined ? retryAfter * 1000 : Math.min(30_000, 500 * 2 ** (attempt - 1))),
  );

/**
 * A write retried with the same `Idempotency-Key`, so it takes effect once however many times it is sent: after no
 * answer (a network failure: the write may have been done), `409 idempotency_in_flight` (the first attempt is still
 * running), `429` or a `5xx`. The API answers a repeated key with the first answer (`Idempotent-Replayed: true`).
 *
 * ```ts
 * const { data } = await withIdempotency((key) =>
 *   api.POST('/api/v1/contacts', { body, headers: { 'Idempotency-Key': key } }));
 * ```
 *
 * Resolves with the last call's `{ data, error, response }`; rejects with the last network error when no answer came.
 */
export async function withIdempotency<Result extends Called<unknown>>(
  write: (idempotencyKey: string) => Promise<Result>,
  options: RetryOptions = {},
): Promise<Result> {
  const key = options.idempotencyKey ?? crypto.randomUUID();
  const retries = options.retries ?? 3;
  const wait = options.wait ?? pause;
  for (let attempt = 0; ; attempt++) {
    let result: Result;
    try {
      result = await write(key);
    } catch (failure) {
      if (attempt >= retries) throw failure;
      await wait(attempt + 1, undefined);
      continue;
    }
    const { status } = result.response;
    const code = (result.error as Problem | undefined)?.code;
    const again = retriable(status) && (status !== 409 || code === 'idempotency_in_flight');
    if (!again || attempt >= retries) return result;
    const after = Number(result.response.headers.get('Retry-After'));
    await wait(
      attempt + 1,
      Number.isFinite(after) && after >= 0 && result.response.headers.has('Retry-After') ? after : undefined,
    );
  }
}

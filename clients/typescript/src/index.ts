import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema';

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

import type { Client } from 'openapi-fetch';
import { createPropertyApiClient, type paths } from '../../clients/typescript/src/index';
import { afterResponsesSettled } from '../../lib/request-lifecycle';
import type { TestApi } from './harness';

export type TestClient = Client<paths>;

/**
 * The project's typed client (clients/typescript: openapi-fetch over the generated schema) wired to the test API in
 * process: `client.POST('/api/v1/contacts', { body })` gives `{ data, error, response }` typed from the OpenAPI
 * document, so a test reads `data.reference` instead of casting `res.json`. Requests go to `app.fetch` on the
 * company's host (no socket); like the harness's `request`, an answer is handed back once the webhook hand-off that
 * runs after it has settled, so a test sees its effects.
 */
export function testClient(
  api: TestApi,
  options: { host: string; serverKey?: string; publishableKey?: string; headers?: Record<string, string> },
): TestClient {
  return createPropertyApiClient({
    baseUrl: `http://${options.host}`,
    serverKey: options.serverKey,
    publishableKey: options.publishableKey,
    headers: options.headers,
    fetch: async (request: Request) => {
      const res = await api.app.fetch(request);
      const body = await res.arrayBuffer();
      await afterResponsesSettled();
      return new Response(body.byteLength === 0 ? null : body, { status: res.status, headers: res.headers });
    },
  });
}

import createClient, { type Client } from 'openapi-fetch';
import type { operations as AdminOperations, paths as AdminPaths } from '../../clients/admin/schema';
import { createPropertyApiClient, type paths } from '../../clients/typescript/src/index';
import { afterResponsesSettled } from '../../lib/request-lifecycle';
import type { TestApi } from './harness';

export type TestClient = Client<paths>;

/** The admin API's typed client: openapi-fetch over clients/admin/schema.d.ts, generated from openapi/admin.json. */
export type AdminClient = Client<AdminPaths>;

/** The request body of an admin operation, by its `operationId`: `AdminBody<'createCompany'>`. */
export type AdminBody<Id extends keyof AdminOperations> = AdminOperations[Id] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/**
 * The test API's `fetch` in process (no socket): an answer is handed back once the webhook hand-off that runs after
 * it has settled, so a test sees its effects.
 */
function inProcess(api: TestApi) {
  return async (request: Request) => {
    const res = await api.app.fetch(request);
    const body = await res.arrayBuffer();
    await afterResponsesSettled();
    return new Response(body.byteLength === 0 ? null : body, { status: res.status, headers: res.headers });
  };
}

/**
 * The project's typed client (clients/typescript: openapi-fetch over the generated schema) wired to the test API in
 * process: `client.POST('/api/v1/contacts', { body })` gives `{ data, error, response }` typed from the OpenAPI
 * document, so a test reads `data.reference` instead of casting `res.json`. Requests go to `app.fetch` on the
 * company's host; like the harness's `request`, an answer is handed back once the webhook hand-off has settled.
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
    fetch: inProcess(api),
  });
}

/**
 * The admin API's typed client on the test API, with its operator token (another `token`, e.g. a wrong one, if
 * given): `admin.POST('/admin/v1/companies/{company_id}/keys', { params: { path: { company_id } }, body })`.
 */
export function adminClient(api: TestApi, options: { token?: string; headers?: Record<string, string> } = {}): AdminClient {
  return createClient<AdminPaths>({
    baseUrl: 'http://admin.test',
    headers: { Authorization: `Bearer ${options.token ?? api.adminToken}`, ...options.headers },
    fetch: inProcess(api),
  });
}

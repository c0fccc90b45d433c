import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApi, type TestApi } from '../support/harness';

/** Property: whatever a client sends, the answer is never a 500 (bad input is a 4xx problem). */

let api: TestApi;
let company: { id: string; host: string };
let operations: Array<{ method: string; path: string }>;

beforeAll(async () => {
  api = await createTestApi();
  company = await api.demoCompany({ team_module: true });
  const docs = [(await api.request('/api/v1/openapi.json')).json, (await api.request('/admin/v1/openapi.json')).json];
  operations = docs.flatMap((doc) =>
    Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path })),
    ),
  );
});
afterAll(() => api.close());

const names = [
  'type',
  'area',
  'project',
  'property_type',
  'bedrooms_min',
  'bedrooms_max',
  'guests_min',
  'completion',
  'featured',
  'sort',
  'page_size',
  'cursor',
  'cover',
  'action',
  'x',
];
const value = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom('', 'true', '1', '-1', '1e308', 'NaN', '%', '%00', '../', "' or 1=1 --", '[]', '{}', 'null'),
  fc.base64String({ maxLength: 60 }),
);
const query = fc.array(fc.tuple(fc.constantFrom(...names), value), { maxLength: 5 });
const segment = fc.oneof(value, fc.uuid(), fc.constantFrom('marina-gate-2br-sea-view', 'sk_AAAAAAAAAA'));

describe('no input gives a 500', () => {
  it('on every documented operation, with random path segments, query strings and bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 10_000 }),
        query,
        fc.array(segment, { minLength: 4, maxLength: 4 }),
        fc.oneof(fc.jsonValue(), fc.string({ maxLength: 50 })),
        fc.boolean(),
        async (pick, params, segments, body, asAdmin) => {
          const op = operations[pick % operations.length]!;
          let i = 0;
          const path = op.path.replace(/\{[a-z_]+\}/g, (name) =>
            name === '{company_id}' && asAdmin ? company.id : encodeURIComponent(segments[i++ % 4] ?? ''),
          );
          const search = new URLSearchParams(params).toString();
          const res = await api.request(`${path}${search ? `?${search}` : ''}`, {
            method: op.method,
            host: company.host,
            key: asAdmin && op.path.startsWith('/admin') ? api.adminToken : undefined,
            body: op.method === 'GET' || op.method === 'DELETE' ? undefined : JSON.stringify(body),
            headers: { 'Content-Type': 'application/json' },
          });
          expect(res.status, `${op.method} ${path}?${search} → ${res.text}`).toBeLessThan(500);
          if (res.status >= 400) expect(res.headers.get('content-type')).toBe('application/problem+json');
        },
      ),
      { numRuns: 400 },
    );
  }, 120_000);
});

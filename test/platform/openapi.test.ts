import { compileErrors, validate } from '@readme/openapi-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { ListingListSchema, ListingSchema, MapPointListSchema } from '../../schema/catalogue/listings';
import { ProblemSchema } from '../../schema/common/api';
import { testClient } from '../support/client';
import { demoCompany, useApi } from '../support/world';

let host: string;
const api = useApi();
beforeAll(async () => {
  ({ host } = await demoCompany(api));
});

/** A document (public or admin) as served. */
const documentAt = (path: '/api/v1/openapi.json' | '/admin/v1/openapi.json') =>
  // raw: the documents are not operations they declare
  api.request(path);

describe('the OpenAPI documents', () => {
  it.each(['/api/v1/openapi.json', '/admin/v1/openapi.json'] as const)('%s is a valid OpenAPI 3.1 document', async (path) => {
    const res = await documentAt(path);
    expect(res.status).toBe(200);
    expect(res.json.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(res.json));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('keeps the public and the admin operations apart', async () => {
    const publicDoc = (await documentAt('/api/v1/openapi.json')).json;
    const adminDoc = (await documentAt('/admin/v1/openapi.json')).json;
    expect(Object.keys(publicDoc.paths).every((p) => p.startsWith('/api/v1/'))).toBe(true);
    expect(Object.keys(adminDoc.paths).every((p) => p.startsWith('/admin/v1/'))).toBe(true);
    expect(Object.keys(publicDoc.paths)).toEqual(
      expect.arrayContaining(['/api/v1/listings', '/api/v1/listings/map', '/api/v1/listings/{slug}', '/api/v1/sitemap']),
    );
    expect(publicDoc.components.securitySchemes.serverKey).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('documents the answers the routes really give', async () => {
    const client = testClient(api, { host });
    const list = await client.GET('/api/v1/listings', { params: { query: { page_size: 5 } } });
    expect(() => ListingListSchema.parse(list.data)).not.toThrow();
    const slug = list.data?.results[0]?.slug.en as string;
    const detail = await client.GET('/api/v1/listings/{slug}', { params: { path: { slug } } });
    expect(() => ListingSchema.parse(detail.data)).not.toThrow();
    const map = await client.GET('/api/v1/listings/map', { params: { query: { cover: '1' } } });
    expect(() => MapPointListSchema.parse(map.data)).not.toThrow();
    const problem = await client.GET('/api/v1/listings', { params: { query: { page_size: 0 } } });
    expect(() => ProblemSchema.parse(problem.error)).not.toThrow();
  });

  it('serves a readable reference page pointing at the document', async () => {
    // raw: the reference page (HTML), outside the API's document
    const res = await api.request('/api/v1/docs');
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.text).toContain('/api/v1/openapi.json');
  });
});

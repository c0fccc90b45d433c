import { compileErrors, validate } from '@readme/openapi-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { ListingListSchema, ListingSchema, MapPointListSchema } from '../../schema/catalogue/listings';
import { ProblemSchema } from '../../schema/common/api';
import { demoCompany, useApi } from '../support/world';

let host: string;
const api = useApi();
beforeAll(async () => {
  ({ host } = await demoCompany(api));
});

describe('the OpenAPI documents', () => {
  it.each(['/api/v1/openapi.json', '/admin/v1/openapi.json'])('%s is a valid OpenAPI 3.1 document', async (path) => {
    const res = await api.request(path);
    expect(res.status).toBe(200);
    expect(res.json.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(res.json));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('keeps the public and the admin operations apart', async () => {
    const publicDoc = (await api.request('/api/v1/openapi.json')).json;
    const adminDoc = (await api.request('/admin/v1/openapi.json')).json;
    expect(Object.keys(publicDoc.paths).every((p) => p.startsWith('/api/v1/'))).toBe(true);
    expect(Object.keys(adminDoc.paths).every((p) => p.startsWith('/admin/v1/'))).toBe(true);
    expect(Object.keys(publicDoc.paths)).toEqual(
      expect.arrayContaining(['/api/v1/listings', '/api/v1/listings/map', '/api/v1/listings/{slug}', '/api/v1/sitemap']),
    );
    expect(publicDoc.components.securitySchemes.serverKey).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('documents the answers the routes really give', async () => {
    const list = await api.request('/api/v1/listings?page_size=5', { host });
    expect(() => ListingListSchema.parse(list.json)).not.toThrow();
    const detail = await api.request(`/api/v1/listings/${list.json.results[0].slug.en}`, { host });
    expect(() => ListingSchema.parse(detail.json)).not.toThrow();
    const map = await api.request('/api/v1/listings/map?cover=1', { host });
    expect(() => MapPointListSchema.parse(map.json)).not.toThrow();
    const problem = await api.request('/api/v1/listings?page_size=0', { host });
    expect(() => ProblemSchema.parse(problem.json)).not.toThrow();
  });

  it('serves a readable reference page pointing at the document', async () => {
    const res = await api.request('/api/v1/docs');
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.text).toContain('/api/v1/openapi.json');
  });
});

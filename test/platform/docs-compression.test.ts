import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { afterResponsesSettled } from '../../lib/request-lifecycle';
import { docsScriptPath } from '../../lib/security-headers';
import { createTestApi, type TestApi } from '../support/harness';

/**
 * The reference page's script (4.35 MB) and the OpenAPI documents, from the Node server over real HTTP: sent in the
 * variant Accept-Encoding asks for (brotli, gzip, or none), as catalogue answers are, each the same bytes once decoded.
 */
let api: TestApi;
let server: Server;
let port: number;

type Raw = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

function get(path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { Host: 'docs.test', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

function decoded(raw: Raw): Buffer {
  const encoding = raw.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(raw.body);
  if (encoding === 'gzip') return gunzipSync(raw.body);
  return raw.body;
}

beforeAll(async () => {
  api = await createTestApi();
  server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: api.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server));
  });
  port = (server.address() as AddressInfo).port;
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await afterResponsesSettled();
  await api?.close();
});

describe.each([
  ['the reference page script', docsScriptPath, 'text/javascript; charset=utf-8', 0.3],
  ['the public OpenAPI document', '/api/v1/openapi.json', 'application/json', 0.2],
  ['the admin OpenAPI document', '/admin/v1/openapi.json', 'application/json', 0.2],
])('%s', (_, path, type, ratio) => {
  it('is compressed per Accept-Encoding (brotli preferred, gzip, or none), the same bytes once decoded', async () => {
    const plain = await get(path);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toBe(type);
    expect(plain.headers.vary).toBe('Accept-Encoding, Api-Version');
    for (const [accept, expected] of [
      ['gzip, deflate, br, zstd', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0.5, gzip', 'gzip'],
      ['identity', undefined],
    ] as const) {
      const res = await get(path, { 'Accept-Encoding': accept });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding'], accept).toBe(expected);
      expect(res.headers['content-type']).toBe(type);
      expect(decoded(res).equals(plain.body)).toBe(true);
      if (expected) expect(res.body.byteLength).toBeLessThan(plain.body.byteLength * ratio);
    }
  }, 60_000);
});

describe('the reference page script', () => {
  it('is still revalidated by its ETag (304, no body)', async () => {
    const first = await get(docsScriptPath, { 'Accept-Encoding': 'br' });
    const again = await get(docsScriptPath, { 'Accept-Encoding': 'br', 'If-None-Match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.byteLength).toBe(0);
  });
});

describe('the OpenAPI document', () => {
  it('introduces the API without naming a file of this repository', async () => {
    const doc = JSON.parse((await get('/api/v1/openapi.json')).body.toString('utf8'));
    expect(doc.info.description).not.toMatch(/docs\/|\.md\b/);
    expect(doc.info.description).toContain('a page explaining its code');
  });
});

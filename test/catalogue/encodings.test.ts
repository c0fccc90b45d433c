import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApi, type TestApi } from '../support/harness';
import { onLoopback } from './support';
import { demoCompany } from '../support/world';

/**
 * Cached catalogue pages are kept as bytes with gzip and brotli variants, sent as the request's
 * Accept-Encoding asks, over a real HTTP server on loopback; the client decodes them with zlib.
 */

let api: TestApi;
let close: () => Promise<void>;
let port: number;
let host: string;

beforeAll(async () => {
  api = await createTestApi();
  ({ host } = await demoCompany(api));
  ({ port, close } = await onLoopback(api));
});
afterAll(async () => {
  await close();
  await api.close();
});

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; raw: Buffer; text: string };

function get(path: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { Host: host, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const encoding = res.headers['content-encoding'];
        const decoded = encoding === 'br' ? brotliDecompressSync(raw) : encoding === 'gzip' ? gunzipSync(raw) : raw;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, raw, text: decoded.toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const path = '/api/v1/listings?page_size=24';

describe('cached catalogue pages, compressed as the client accepts', () => {
  it.each([
    ['br', 'br'],
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['gzip;q=0, br;q=0', undefined],
    ['*', 'br'],
    ['identity', undefined],
    ['deflate', undefined],
  ])('Accept-Encoding: %s → %s, the same JSON', async (accept, expected) => {
    const plain = await get(path, {});
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    for (const attempt of [1, 2]) {
      // The first request of a page may build it; the second is served from memory: both are encoded alike.
      const res = await get(path, { 'Accept-Encoding': accept });
      expect(res.status, `attempt ${attempt}`).toBe(200);
      expect(res.headers['content-encoding'], `attempt ${attempt}`).toBe(expected);
      expect(res.headers.vary).toBe('Accept-Encoding, Api-Version');
      expect(res.headers['content-type']).toContain('application/json');
      expect(JSON.parse(res.text)).toEqual(JSON.parse(plain.text));
      if (expected) expect(res.raw.length).toBeLessThan(Buffer.byteLength(plain.text) / 3);
    }
  });

  it('encodes the answer that builds the page as the ones served from memory, and says Vary on a 304', async () => {
    const sitemap = '/api/v1/sitemap?page_size=7';
    const built = await get(sitemap, { 'Accept-Encoding': 'gzip' });
    expect(built.headers['content-encoding']).toBe('gzip');
    expect(built.headers['request-id']).toBeTruthy();
    const cached = await get(sitemap, { 'Accept-Encoding': 'gzip' });
    expect(cached.text).toBe(built.text);
    const etag = cached.headers.etag as string;
    const revalidated = await get(sitemap, { 'Accept-Encoding': 'gzip', 'If-None-Match': etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.vary).toBe('Accept-Encoding, Api-Version');
    expect(revalidated.raw.length).toBe(0);
  });
});

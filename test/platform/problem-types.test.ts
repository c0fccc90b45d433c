import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { afterResponsesSettled } from '../../lib/request-lifecycle';
import { problemStatus } from '../../lib/errors';
import { problemCodes, problemExplanations } from '../../lib/problem-pages';
import { createTestApi, type TestApi } from '../support/harness';
import { demoCompany } from '../support/world';

/**
 * Every problem's `type` resolves: it is /problems/<code> on the host asked (or PROBLEM_TYPE_BASE_URL), and the API
 * answers that page itself. Over real HTTP on loopback; the Host header names the company, as in production.
 */
let api: TestApi;
let server: Server;
let port: number;
let host: string;

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; text: string; json: any };

/** A request with our own Host header (fetch may not set one). */
function call(
  path: string,
  o: { method?: string; host?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: o.method ?? 'GET',
        headers: { Host: o.host ?? `127.0.0.1:${port}`, ...o.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: any;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(o.body);
  });
}

/** A problem's `type` fetched as it is given (its host and path); the page's JSON names the same code. */
async function resolves(type: string, code: string): Promise<void> {
  const url = new URL(type);
  expect(url.pathname).toBe(`/problems/${code}`);
  const page = await call(url.pathname, { host: url.host, headers: { Accept: 'application/json' } });
  expect(page.status, type).toBe(200);
  expect(page.json).toMatchObject({ code, status: problemStatus[code as keyof typeof problemStatus] });
}

beforeAll(async () => {
  api = await createTestApi();
  ({ host } = await demoCompany(api));
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

describe('problem type pages', () => {
  it('answers a page for every code the API can emit, as HTML and as JSON', async () => {
    expect(problemCodes.length).toBeGreaterThan(40);
    for (const code of problemCodes) {
      const html = await call(`/problems/${code}`, { headers: { Accept: 'text/html' } });
      expect(html.status, code).toBe(200);
      expect(html.headers['content-type']).toMatch(/^text\/html/);
      expect(html.text).toContain(`<code>${code}</code>`);
      expect(html.text).toContain(`HTTP status ${problemStatus[code]}`);
      const json = await call(`/problems/${code}`, { headers: { Accept: 'application/json' } });
      expect(json.status, code).toBe(200);
      expect(json.json).toEqual({
        code,
        status: problemStatus[code],
        title: expect.any(String),
        description: problemExplanations[code].replace(/`/g, ''),
      });
    }
  });

  it('lists every code on /problems, on any host (no company needed)', async () => {
    const index = await call('/problems', { host: 'nobody.test', headers: { Accept: 'application/json' } });
    expect(index.status).toBe(200);
    expect(index.json.data.map((p: { code: string }) => p.code)).toEqual(problemCodes);
    const html = await call('/problems', { host: 'nobody.test' });
    for (const code of problemCodes) expect(html.text).toContain(`href="/problems/${code}"`);
  });

  it('answers an unknown code with a not_found problem whose own type resolves', async () => {
    const res = await call('/problems/no_such_code');
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('not_found');
    await resolves(res.json.type, 'not_found');
  });

  it('gives every problem a route answers a type on the host asked, and that type resolves', async () => {
    // Every operation of the public and admin documents, called without a key (and with a junk body): each
    // refuses with some problem; its `type` must lead to a page of the same code on the same host.
    const doc = (await call('/api/v1/openapi.json', { host })).json;
    const admin = (await call('/admin/v1/openapi.json', { host })).json;
    const seen = new Set<string>();
    let problems = 0;
    for (const [path, item] of [...Object.entries(doc.paths), ...Object.entries(admin.paths)] as Array<
      [string, Record<string, unknown>]
    >) {
      for (const method of Object.keys(item).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))) {
        const concrete = path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
        const write = method !== 'get' && method !== 'delete';
        const res = await call(concrete, {
          method: method.toUpperCase(),
          host,
          headers: write ? { 'Content-Type': 'application/json' } : {},
          body: write ? '{"junk": true}' : undefined,
        });
        if (res.status < 400) continue;
        expect(res.headers['content-type'], `${method} ${path} ${res.status} ${res.text}`).toBe('application/problem+json');
        problems++;
        expect(res.json.type).toBe(`http://${host}/problems/${res.json.code}`);
        if (!seen.has(res.json.code)) {
          seen.add(res.json.code);
          await resolves(res.json.type, res.json.code);
        }
      }
    }
    expect(problems).toBeGreaterThan(100);
    // Unknown host, bad JSON, an unknown route: the root app's own problems.
    for (const [path, o] of [
      ['/api/v1/listings', { host: 'nobody.test' }],
      ['/api/v1/nothing-here', { host }],
      [
        '/admin/v1/companies',
        {
          host,
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${api.adminToken}` },
          body: '{',
        },
      ],
    ] as const) {
      const res = await call(path, o);
      expect(res.status).toBeGreaterThanOrEqual(400);
      await resolves(res.json.type, res.json.code);
      seen.add(res.json.code);
    }
    expect([...seen]).toEqual(
      expect.arrayContaining(['unknown_host', 'not_found', 'invalid_json', 'key_required', 'admin_token_invalid']),
    );
  }, 120_000);
});

describe('PROBLEM_TYPE_BASE_URL', () => {
  it('points every type at the deployment’s own docs host', async () => {
    const own = await createTestApi({ env: { PROBLEM_TYPE_BASE_URL: 'https://docs.example.com/errors' } });
    try {
      // raw: a Host that names no company
      const res = await own.request('/api/v1/listings', { host: 'nobody.test' });
      expect(res.json.type).toBe('https://docs.example.com/errors/unknown_host');
    } finally {
      await own.close();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../functions/app';
import type { ServicesProvider } from '../../lib/env';
import type { DatabaseHandle } from '../../lib/db/index';
import { readSqlMigrations } from '../../lib/db/migrations-fs';
import { openPGlite } from '../../lib/db/pglite';
import { openPostgres } from '../../lib/db/postgres';
import type { Services } from '../../lib/env';
import { expectedMigration } from '../../lib/health';
import { createTestApi, type TestApi } from '../support/harness';

/**
 * Issue 23, health: GET /health (liveness) and GET /health/ready (readiness) on any host, with no key, outside the
 * rate limits; readiness 503 (problem+json) when the database cannot be reached or lacks the code's migrations.
 */
let api: TestApi;

beforeAll(async () => {
  // One anonymous request a minute: a health check must never be counted against it.
  api = await createTestApi({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1' } });
});
afterAll(() => api.handle.close());

/** GET /health or /health/ready of an app (the test API's, or one built here) on a host, without a key. */
const health = (app: Pick<TestApi['app'], 'request'>, path: '/health' | '/health/ready', host = 'unknown.test') =>
  // raw: the health routes are not operations of the documents, and are asked on any host without a key
  app.request(`http://${host}${path}`);

describe('GET /health', () => {
  it('answers 200 on any host, every time, with no rate limit headers', async () => {
    for (const host of ['unknown.test', 'localhost', '203.0.113.9', 'unknown.test', 'unknown.test']) {
      const res = await health(api.app, '/health', host);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok' });
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('ratelimit')).toBeNull();
      expect(res.headers.get('ratelimit-policy')).toBeNull();
    }
  });
});

describe('GET /health/ready', () => {
  it('answers 200 on a migrated database, on any host, however often', async () => {
    for (let i = 0; i < 4; i++) {
      const res = await health(api.app, '/health/ready');
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        status: 'ready',
        database: 'reachable',
        migration: expectedMigration,
        outbound: 'running',
      });
    }
  });

  it('names the newest migration of the folder (a Worker has no folder to read)', async () => {
    expect(Object.keys(await readSqlMigrations()).at(-1)).toBe(expectedMigration);
  });

  /** The real app over a database that is not ready, given through the services provider as a Worker's is. */
  function appOn(provide: ServicesProvider) {
    return buildApp(provide, { admin: true });
  }
  const over =
    (handle: DatabaseHandle): ServicesProvider =>
    () => ({ services: { db: handle.db } as Services });

  it('answers 503 not_ready on a database without the migrations, while /health still answers 200', async () => {
    const empty = await openPGlite();
    try {
      const app = appOn(over(empty));
      const res = await health(app, '/health/ready');
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      const body = await res.json();
      expect(body.code).toBe('not_ready');
      expect(body.detail).toContain(expectedMigration);
      expect((await health(app, '/health')).status).toBe(200);
    } finally {
      await empty.close();
    }
  });

  it('answers 503 not_ready when the database cannot be reached, or is not configured', async () => {
    // Port 1 on loopback: nothing listens there.
    const unreachable = openPostgres('postgresql://postgres@127.0.0.1:1/none', { max: 1 });
    try {
      const res = await health(appOn(over(unreachable)), '/health/ready');
      expect(res.status).toBe(503);
      expect((await res.json()).detail).toMatch(/cannot be reached/);
    } finally {
      await unreachable.close();
    }
    // A Worker without DATABASE_URL: its provider throws; liveness never asks it.
    const unconfigured = appOn(() => {
      throw new Error('DATABASE_URL is not set');
    });
    const ready = await health(unconfigured, '/health/ready');
    expect(ready.status).toBe(503);
    expect((await ready.json()).detail).toContain('DATABASE_URL is not set');
    expect((await health(unconfigured, '/health')).status).toBe(200);
  });
});

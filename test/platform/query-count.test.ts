import { readFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, type LogEvent, PostgresDialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type DatabaseHandle, runScriptSimpleProtocol } from '../../lib/db/index';
import type { Database } from '../../schema/db';
import { createTestApi, type TestApi } from '../support/harness';

/**
 * A page of N listings costs a fixed number of SQL statements, whatever N: photos, areas and the like come
 * in the same query, never one query per row (N+1). Counted at the driver by Kysely's `log` hook.
 */

let statements: string[] = [];

const log = (event: LogEvent) => {
  // Failed statements were sent too; transaction control is not a query of the request's own.
  if (!/^\s*(begin|commit|rollback|savepoint|release)\b/i.test(event.query.sql)) statements.push(event.query.sql);
};

/** The harness's database (openTestDatabase), built here so that Kysely logs every statement. */
async function openCountingDatabase(): Promise<DatabaseHandle> {
  const databaseUrl = inject('databaseUrl');
  if (databaseUrl) {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log });
    return { db, engine: 'postgres', runScript: runScriptSimpleProtocol, close: () => db.destroy() };
  }
  const snapshot = await readFile(inject('pgliteSnapshot'));
  const pglite = await PGlite.create({ loadDataDir: new Blob([snapshot]) });
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite), log });
  return {
    db,
    engine: 'pglite',
    runScript: async (_executor, script) => {
      await pglite.exec(script);
    },
    close: () => db.destroy(),
  };
}

let api: TestApi;
let host: string;

beforeAll(async () => {
  api = await createTestApi({ handle: await openCountingDatabase() });
  ({ host } = await api.demoCompany());
});
afterAll(() => api.close());

async function counted(path: string) {
  statements = [];
  const res = await api.request(path, { host });
  const sent = statements;
  expect(res.status, res.text).toBe(200);
  return { statements: sent, results: res.json.results as unknown[] };
}

const pageSizes = [1, 5, 24, 100];

describe('SQL queries per catalogue request', () => {
  it.each([
    ['/api/v1/listings', ''],
    ['/api/v1/listings/map', ''],
    ['/api/v1/listings/map', '&cover=1'],
    ['/api/v1/sitemap', ''],
  ])('%s%s sends as many queries for page_size 1, 5, 24 and 100', async (path, extra) => {
    await counted(`${path}?page_size=1${extra}`); // anything done once per process is not per request
    const measured = [];
    for (const size of pageSizes) measured.push({ size, ...(await counted(`${path}?page_size=${size}${extra}`)) });

    // The page sizes really gave pages of different lengths (the demo has 29 published listings).
    const all = measured.at(-1)!.results.length;
    expect(all, 'page_size=100 must return more rows than page_size=24').toBeGreaterThan(24);
    for (const m of measured) expect(m.results.length).toBe(Math.min(m.size, all));

    const counts = measured.map((m) => m.statements.length);
    console.log(
      'DEBUG',
      path,
      extra,
      counts,
      measured.map((m) => m.results.length),
    );
    expect(counts[0]).toBeGreaterThan(0);
    expect(counts, `statements per page size ${pageSizes.join(', ')}`).toEqual(pageSizes.map(() => counts[0]));
  });
});

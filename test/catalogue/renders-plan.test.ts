import { CompiledQuery, type LogEvent } from 'kysely';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { growListings } from '../../bench/growth-data';
import { type TestClient, testClient } from '../support/client';
import { createTestApi, openTestDatabase, type TestApi } from '../support/harness';
import { demoCompany } from '../support/world';

/**
 * A page's stored forms are read by primary key for the page's rows only, whatever other companies hold. Found by
 * the growth bench: beside a company of 100,000 listings whose forms were mostly not rendered yet, a small company's
 * first page took 5.5 ms instead of 1.5 ms, because the planner, expecting few forms to carry the small company's
 * tag, scanned every company's `listing_renders` for it (the forms were a join). The plans are asked of the
 * database for the statements the routes sent, after `analyze`, as the planner sees a grown table.
 */

let queries: Array<{ sql: string; parameters: readonly unknown[] }> | undefined;
const log = (event: LogEvent) => {
  if (queries && event.level === 'query') queries.push({ sql: event.query.sql, parameters: event.query.parameters });
};

let api: TestApi;
let small: { id: string; host: string };

beforeAll(async () => {
  api = await createTestApi({
    handle: await openTestDatabase({ log }),
    env: { CATALOGUE_RESPONSE_CACHE_MB: '0', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000000' },
  });
  small = await demoCompany(api);
  const large = await demoCompany(api);
  // The growth bench's own generator, through this test's database (it asks for a pg client's `query`).
  const client = {
    query: async (text: string, values: unknown[] = []) => ({
      rows: (await api.db.executeQuery(CompiledQuery.raw(text, values))).rows,
    }),
  } as unknown as pg.Client;
  await growListings(client, small.id, 1_000);
  await growListings(client, large.id, 5_000);
  await api.db.executeQuery(CompiledQuery.raw('analyze listings, listing_renders'));
});
afterAll(() => api.close());

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] };
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** The plan of each statement a request sent that reads stored forms, as the database would run it now. */
async function formReads(read: (client: TestClient) => Promise<{ error?: unknown; response: Response }>) {
  const client = testClient(api, { host: small.host });
  await read(client); // the first read fills the small company's forms
  queries = [];
  const res = await read(client);
  const sent = queries;
  queries = undefined;
  expect(res.response.status, JSON.stringify(res.error)).toBe(200);
  const reads = sent.filter((query) => query.sql.includes('"listing_renders"'));
  expect(reads.length, sent.map((query) => query.sql).join('\n')).toBeGreaterThan(0);
  return Promise.all(
    reads.map(async (query) => {
      const plan = await api.db.executeQuery<{ 'QUERY PLAN': unknown }>(
        CompiledQuery.raw(`explain (format json) ${query.sql}`, [...query.parameters]),
      );
      const json = plan.rows[0]?.['QUERY PLAN'];
      const root = (typeof json === 'string' ? JSON.parse(json) : json) as Array<{ Plan: PlanNode }>;
      return nodesOf(root[0]!.Plan).filter((node) => node['Relation Name'] === 'listing_renders');
    }),
  );
}

describe("a small company's pages beside a large company", () => {
  it.each<[string, (client: TestClient) => Promise<{ error?: unknown; response: Response }>]>([
    ['/api/v1/listings?sort=newest', (c) => c.GET('/api/v1/listings', { params: { query: { sort: 'newest' } } })],
    ['/api/v1/listings?sort=featured', (c) => c.GET('/api/v1/listings', { params: { query: { sort: 'featured' } } })],
    ['/api/v1/listings/map', (c) => c.GET('/api/v1/listings/map')],
    ['/api/v1/sitemap', (c) => c.GET('/api/v1/sitemap')],
  ])('read the forms of %s by primary key, never by scanning the table', async (_path, read) => {
    for (const nodes of await formReads(read)) {
      expect(nodes.length).toBeGreaterThan(0);
      for (const node of nodes) {
        expect(node['Node Type'], JSON.stringify(node)).toMatch(/^Index (Only )?Scan$/);
        expect(node['Index Name']).toBe('listing_renders_pkey');
      }
    }
  });
});

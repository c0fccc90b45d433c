import { describe, expect, it } from 'vitest';
import { newReference } from '../../lib/references';
import { testClient } from '../support/client';
import { createTestApi, openTestDatabase, statementLog } from '../support/harness';
import { createCompany, createKey } from '../support/world';

describe('SQL statements per contacts list request', () => {
  it('do not grow with page_size (leads and external ids come per page, not per row)', async () => {
    let statements: string[] = [];
    const log = statementLog(() => statements);
    const counted = await createTestApi({ handle: await openTestDatabase({ log }) });
    try {
      const own = await createCompany(counted);
      const key = (await createKey(counted, own.id, { scopes: ['read:contacts'] })).secret;
      const rows = Array.from({ length: 60 }, (_, i) => ({ company_id: own.id, reference: newReference('P'), name: `P${i}` }));
      const inserted = await counted.db.insertInto('contacts').values(rows).returning(['id']).execute();
      await counted.db
        .insertInto('leads')
        .values(
          inserted.map((c) => ({ company_id: own.id, reference: newReference('L'), contact_id: c.id, caused_by: 'website' })),
        )
        .execute();
      await counted.db
        .insertInto('external_ids')
        .values(
          inserted.map((c, i) => ({
            company_id: own.id,
            record_type: 'contact' as const,
            source: 'crm',
            external_id: `${i}`,
            record_id: c.id,
          })),
        )
        .execute();
      const client = testClient(counted, { host: own.host, serverKey: key });
      const measure = async (size: number) => {
        statements = [];
        const { data, error } = await client.GET('/api/v1/contacts', { params: { query: { page_size: size } } });
        expect(error).toBeUndefined();
        expect(data?.results).toHaveLength(size);
        expect(data?.results.every((c) => c.leads.length === 1 && c.external.length === 1)).toBe(true);
        return statements.length;
      };
      // The company row is kept in memory once the listening connection is up and this process's writes are
      // notified (lib/company-cache.ts); before that a read asks the database for it.
      await counted.platform.companyCache.listening();
      await counted.platform.companyCache.settled();
      await measure(1); // anything done once per key or process is not per request
      const counts = [];
      for (const size of [1, 5, 20, 60]) counts.push(await measure(size));
      // The page and the audit row: leads and external ids come in the page's own query.
      expect(counts[0]).toBeGreaterThanOrEqual(2);
      expect(counts).toEqual([counts[0], counts[0], counts[0], counts[0]]);
    } finally {
      await counted.close();
    }
  });
});

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../lib/db/index';
import { migrateToLatest } from '../../lib/db/migrate';
import { readSqlMigrations } from '../../lib/db/migrations-fs';
import type { components } from '../../clients/typescript/src/index';
import { testClient } from '../support/client';
import { createTestApi, openTestDatabase, type TestApi } from '../support/harness';
import { createKey } from '../support/world';

/**
 * One external-id mechanism (lib/external-ids.ts, table external_ids) for every record. Migration 0010 moved
 * activities' and tasks' `source` + `external_id` columns into it: a database that ran 0009 with follow-ups
 * written the old way keeps them, and clients see the same answers as before.
 */
let api: TestApi;
let key: string;
let host: string;

/** A database of its own, migrated up to 0009 only (the shared one and the snapshot have every migration). */
async function databaseAt0009(): Promise<DatabaseHandle> {
  const handle = await openTestDatabase({ own: 'empty' });
  const migrations = await readSqlMigrations();
  await migrateToLatest(handle, Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0010')));
  return handle;
}

/** Rows as the code before 0010 wrote them: the follow-ups' ids in their own columns. */
async function writeTheOldWay(handle: DatabaseHandle): Promise<string> {
  const company = await sql<{ id: string }>`
    insert into companies (name, environment, currency, time_zone)
    values ('Before 0010', 'production', 'AED', 'Asia/Dubai') returning id`.execute(handle.db);
  const companyId = company.rows[0]!.id;
  await sql`insert into company_hosts (host, company_id) values (${host}, ${companyId})`.execute(handle.db);
  await sql`
    with person as (
      insert into contacts (company_id, reference, name) values (${companyId}, 'P-MIGRATED01', 'Mona') returning id
    ), enquiry as (
      insert into leads (company_id, reference, contact_id, caused_by)
      select ${companyId}, 'L-MIGRATED01', id, 'website' from person returning id, contact_id
    ), held as (
      insert into external_ids (company_id, record_type, source, external_id, record_id)
      select ${companyId}, 'contact', 'hubspot', 'c-1', id from person
    ), note as (
      insert into activities (company_id, reference, type, source, external_id, lead_id, contact_id, body, occurred_at)
      select ${companyId}, 'A-MIGRATED01', 'note', 'hubspot', 'n-1', id, contact_id, 'Before', '2026-01-05T10:00:00Z'
      from enquiry
    ), ring as (
      insert into activities (company_id, reference, type, source, external_id, occurred_at)
      values (${companyId}, 'A-MIGRATED02', 'call', 'pbx', 'call:7', '2026-01-06T10:00:00Z')
    )
    insert into tasks (id, company_id, title, source, external_id, contact_id)
    select 'task_migrated0000000001', ${companyId}, 'Call back', 'hubspot', 'n-1', id from person
  `.execute(handle.db);
  return companyId;
}

beforeAll(async () => {
  host = `before-0010-${Date.now().toString(36)}.test`;
  const handle = await databaseAt0009();
  const companyId = await writeTheOldWay(handle);
  api = await createTestApi({ handle }); // the platform applies 0010
  const scopes = ['read:followups', 'write:followups', 'read:contacts'] as const;
  key = (await createKey(api, companyId, { scopes: [...scopes] })).secret;
});
afterAll(() => api.close());

const client = () => testClient(api, { host, serverKey: key });
const activities = (external: string) => client().GET('/api/v1/activities', { params: { query: { external } } });
const postActivity = (body: components['schemas']['ActivityInput']) => client().POST('/api/v1/activities', { body });

describe('a database migrated from 0009 to 0010', () => {
  it('keeps each activity’s source and external_id: shown, filtered by ?external=, and the first record for a repeat', async () => {
    const found = await activities('hubspot:n-1');
    expect(found.data?.results).toEqual([
      expect.objectContaining({
        reference: 'A-MIGRATED01',
        type: 'note',
        source: 'hubspot',
        external_id: 'n-1',
        lead: 'L-MIGRATED01',
        person: 'P-MIGRATED01',
        body: 'Before',
        occurred_at: '2026-01-05T10:00:00.000Z',
      }),
    ]);
    const colon = await activities('pbx:call:7');
    expect(colon.data?.results.map((a) => a.reference)).toEqual(['A-MIGRATED02']);
    const again = await postActivity({ type: 'email', source: 'hubspot', external_id: 'n-1', body: 'After' });
    expect(again.response.status, JSON.stringify(again.error)).toBe(200);
    expect(again.data).toEqual(found.data?.results[0]);
  });

  it('keeps each task’s source and external_id, apart from an activity’s equal one', async () => {
    const task = await client().GET('/api/v1/tasks/{task_id}', { params: { path: { task_id: 'task_migrated0000000001' } } });
    expect(task.data).toMatchObject({ title: 'Call back', source: 'hubspot', external_id: 'n-1', person: 'P-MIGRATED01' });
    expect((await client().GET('/api/v1/tasks', { params: { query: { external: 'hubspot:n-1' } } })).data?.results).toEqual([
      task.data,
    ]);
    const again = await client().POST('/api/v1/tasks', { body: { title: 'Another', source: 'hubspot', external_id: 'n-1' } });
    expect([again.response.status, again.data]).toEqual([200, task.data]);
  });

  it('keeps contacts’ ids, and takes new follow-ups once per source and external_id', async () => {
    const contact = await client().GET('/api/v1/contacts', { params: { query: { external: 'hubspot:c-1' } } });
    expect(contact.data?.results.map((c) => [c.reference, c.external])).toEqual([
      ['P-MIGRATED01', [{ source: 'hubspot', id: 'c-1' }]],
    ]);
    const first = await postActivity({ type: 'note', source: 'hubspot', external_id: 'n-2' });
    const second = await postActivity({ type: 'note', source: 'hubspot', external_id: 'n-2' });
    expect([first.response.status, second.response.status, second.data?.reference]).toEqual([201, 200, first.data?.reference]);
  });

  it('drops the old columns; external_ids takes any lower-case kind (a new group needs no migration of it)', async () => {
    const columns = await sql<{ table_name: string; column_name: string }>`
      select table_name, column_name from information_schema.columns
      where table_name in ('activities', 'tasks') and column_name in ('source', 'external_id')`.execute(api.db);
    expect(columns.rows).toEqual([]);
    const insert = (kind: string) =>
      sql`insert into external_ids (company_id, record_type, source, external_id, record_id)
          select company_id, ${kind}, 'crm', ${`x-${kind}`}, 'lease_1' from company_hosts where host = ${host}`.execute(api.db);
    await expect(insert('lease')).resolves.toBeDefined();
    await expect(insert('Lease')).rejects.toThrow(/external_ids_record_type_check/);
  });
});

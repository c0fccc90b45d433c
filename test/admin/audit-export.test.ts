import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditExportBatch, csvField } from '../../lib/audit-export';
import { writeAudit } from '../../lib/audit';
import { createTestApi, type TestApi } from '../support/harness';
import { createCompany, createKey } from '../support/world';

/**
 * The audit export (issue 38): a range of days in the company's time zone (both days included), as JSON lines or CSV,
 * streamed in batches, on the admin API and for a server key with read:audit. Requests are raw: the routes are not
 * yet in the generated clients (regenerated at merge), and the answers are not JSON.
 */
let api: TestApi;
let dubai: { id: string; host: string };
let other: { id: string; host: string };

/** An audit row of the company written by the one writer, then placed at `at`. */
async function entryAt(
  companyId: string,
  at: string,
  entry: { action: string; subject?: string; details?: Record<string, unknown> },
) {
  await writeAudit(api.db, { companyId, actor: 'admin', ...entry });
  await sql`update audit_log set at = ${at}::timestamptz
    where id = (select max(id) from audit_log where company_id = ${companyId}::uuid)`.execute(api.db);
}

beforeAll(async () => {
  api = await createTestApi({ ownDatabase: true });
  // Asia/Dubai is UTC+4: 2026-11-01 starts at 2026-10-31T20:00:00Z.
  dubai = await createCompany(api, { time_zone: 'Asia/Dubai' });
  other = await createCompany(api, { time_zone: 'Asia/Dubai' });
  await entryAt(dubai.id, '2026-10-31T19:59:59.999Z', { action: 'test.before' });
  await entryAt(dubai.id, '2026-10-31T20:00:00.000Z', { action: 'test.first', subject: 'S-1', details: { n: 1 } });
  await entryAt(dubai.id, '2026-11-01T12:00:00.000Z', { action: 'test.special', subject: 'a,"b"', details: { note: 'x\ny' } });
  await entryAt(dubai.id, '2026-11-01T13:00:00.000Z', { action: 'test.formula', subject: '=1+1' });
  await entryAt(dubai.id, '2026-11-02T19:59:59.999Z', { action: 'test.last' });
  await entryAt(dubai.id, '2026-11-02T20:00:00.000Z', { action: 'test.after' });
  await entryAt(other.id, '2026-11-01T12:00:00.000Z', { action: 'test.theirs' });
});
afterAll(() => api.close());

// raw: an export's body is JSON lines or CSV, and the routes are not in the generated clients yet
const adminExport = (query: string, companyId = dubai.id) => api.admin(`/companies/${companyId}/audit-log/export?${query}`);
const lines = (text: string) => text.split('\n').filter((line) => line !== '');

describe('the audit export', () => {
  it('answers the range’s entries as JSON lines, oldest first, both days whole in the company’s zone, with the list’s fields', async () => {
    const res = await adminExport('from=2026-11-01&to=2026-11-02');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    const entries = lines(res.text).map((line) => JSON.parse(line));
    expect(entries.map((e) => e.action)).toEqual(['test.first', 'test.special', 'test.formula', 'test.last']);
    expect(entries[0]).toEqual({
      at: '2026-10-31T20:00:00.000Z',
      actor: 'admin',
      action: 'test.first',
      subject: 'S-1',
      details: { n: 1 },
    });
    // The list's fields, the same values.
    const listed = await api.admin(`/companies/${dubai.id}/audit-log?action=test.special`);
    expect(entries[1]).toEqual(listed.json.results[0]);
    // One day: the first day alone.
    const one = await adminExport('from=2026-11-01&to=2026-11-01');
    expect(lines(one.text).map((line) => JSON.parse(line).action)).toEqual(['test.first', 'test.special', 'test.formula']);
  });

  it('answers CSV with a header, quoted where needed, a formula defused', async () => {
    const res = await adminExport('from=2026-11-01&to=2026-11-02&format=csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const rows = res.text.split('\r\n');
    expect(rows[0]).toBe('at,actor,action,subject,details');
    expect(rows[1]).toBe('2026-10-31T20:00:00.000Z,admin,test.first,S-1,"{""n"":1}"');
    expect(rows[2]).toBe('2026-11-01T12:00:00.000Z,admin,test.special,"a,""b""","{""note"":""x\\ny""}"');
    expect(rows[3]).toBe("2026-11-01T13:00:00.000Z,admin,test.formula,'=1+1,{}");
    expect(rows[4]).toBe('2026-11-02T19:59:59.999Z,admin,test.last,,{}');
    expect(rows.slice(5)).toEqual(['']);
    expect(csvField('-2')).toBe("'-2");
    expect(csvField('plain')).toBe('plain');
  });

  it('streams a range longer than a batch whole and in order', async () => {
    const company = await createCompany(api, { time_zone: 'UTC' });
    const count = auditExportBatch * 2 + 1;
    await sql`insert into audit_log (company_id, at, actor, action, subject)
      select ${company.id}::uuid, timestamptz '2026-10-01T00:00:00Z' + n * interval '1 second', 'system', 'test.bulk', n::text
      from generate_series(1, ${count}) as n`.execute(api.db);
    const res = await adminExport('from=2026-10-01&to=2026-10-01', company.id);
    const subjects = lines(res.text).map((line) => Number(JSON.parse(line).subject));
    expect(subjects).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  });

  it('gives a server key with read:audit its own company’s log, the same as the admin’s', async () => {
    const key = (await createKey(api, dubai.id, { scopes: ['read:audit'] })).secret;
    const theirs = (await createKey(api, other.id, { scopes: ['read:audit'] })).secret;
    const query = '/api/v1/audit-log/export?from=2026-11-01&to=2026-11-02';
    const ours = await api.request(query, { host: dubai.host, key });
    expect(ours.status).toBe(200);
    expect(ours.text).toBe((await adminExport('from=2026-11-01&to=2026-11-02')).text);
    const their = await api.request(query, { host: other.host, key: theirs });
    expect(lines(their.text).map((line) => JSON.parse(line).action)).toEqual(['test.theirs']);
    // A key of one company on another's host is refused.
    expect((await api.request(query, { host: other.host, key })).status).toBe(403);
    const events = (await createKey(api, dubai.id, { scopes: ['read:events'] })).secret;
    expect((await api.request(query, { host: dubai.host, key: events })).status).toBe(403);
  });

  it('refuses a range that ends before it starts, a missing day and an unknown format (400 at the field)', async () => {
    for (const [query, field] of [
      ['from=2026-11-02&to=2026-11-01', 'to'],
      ['to=2026-11-01', 'from'],
      ['from=2026-11-01&to=2026-11-31', 'to'],
      ['from=2026-11-01&to=2026-11-02&format=xml', 'format'],
    ] as const) {
      const res = await adminExport(query);
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.json.errors.map((e: { path: string }) => e.path)).toContain(field);
    }
    expect((await adminExport('from=2026-11-01&to=2026-11-02', '00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });
});

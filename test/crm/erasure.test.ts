import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScheduledWork } from '../../functions/jobs';
import { scopes } from '../../schema/common/scopes';
import { createTestApi, type TestApi } from '../support/harness';
import { setUpdatedAt } from '../support/times';

let api: TestApi;
let company: { id: string; host: string };
let key: string;

beforeAll(async () => {
  api = await createTestApi();
  company = await api.createCompany();
  key = (await api.createKey(company.id, { scopes: [...scopes] })).secret;
});
afterAll(() => api.close());

const call = (path: string, body?: unknown, method?: string) =>
  api.request(`/api/v1${path}`, { host: company.host, key, body, method });

/** A person with a lead, a note and a task, every free-text field carrying a recognisable marker. */
async function person(marker: string) {
  const email = `${marker}@example.com`;
  const lead = await call('/leads', {
    consent: true,
    consent_version: '2026-01',
    name: `Name ${marker}`,
    email,
    phone: '+971501234567'.replace(/\d{4}$/, String(1000 + Math.floor(Math.random() * 8999))),
    message: `Message ${marker}`,
    page: `https://www.example.com/listing?ref=${marker}`,
    details: { budget: `Budget ${marker}`, bedrooms: 3 },
  });
  expect(lead.status, lead.text).toBe(201);
  const contact = lead.json.person as string;
  const note = await call('/activities', {
    type: 'note',
    source: 'crm',
    external_id: `n-${crypto.randomUUID()}`,
    person: contact,
    body: `Note ${marker}`,
  });
  expect(note.status, note.text).toBe(201);
  const task = await call('/tasks', {
    title: `Call ${marker}`,
    source: 'crm',
    external_id: `t-${crypto.randomUUID()}`,
    person: contact,
  });
  expect(task.status, task.text).toBe(201);
  return { contact, lead: lead.json.reference as string, email };
}

/** Every text column of every table the erased person's data could have reached. */
async function databaseText(): Promise<string> {
  const tables = ['contacts', 'leads', 'activities', 'tasks', 'events', 'audit_log', 'external_ids'];
  const parts: string[] = [];
  for (const table of tables) {
    const rows = await sql<{ t: string }>`select row_to_json(x)::text as t from ${sql.table(table)} x`.execute(api.db);
    parts.push(...rows.rows.map((r) => r.t));
  }
  return parts.join('\n');
}

describe('erasure', () => {
  it('empties the person and their leads, removes free text, and leaves no personal data anywhere', async () => {
    const marker = `zq${Date.now().toString(36)}`;
    const { contact, lead, email } = await person(marker);
    // A read with a server key is audited: references only.
    expect((await call(`/contacts/${contact}`)).status).toBe(200);
    expect(await databaseText()).toContain(marker);

    const res = await api.admin(`/companies/${company.id}/contacts/${contact}/erase`, { method: 'POST' });
    expect(res.json).toEqual({ reference: contact, erased: true, already_erased: false });

    const read = await call(`/contacts/${contact}`);
    expect(read.json).toMatchObject({ reference: contact, erased: true, name: null, email: null, phone: null });
    const leadRead = await call(`/leads/${lead}`);
    expect(leadRead.json).toMatchObject({ reference: lead, erased: true, message: null, details: null, page: null });
    expect(await databaseText()).not.toContain(marker);
    expect(await databaseText()).not.toContain(email);

    const events = await api.db
      .selectFrom('events')
      .select(['type', 'caused_by', 'data'])
      .where('company_id', '=', company.id)
      .where('type', '=', 'contact.updated')
      .execute();
    expect(events).toContainEqual({ type: 'contact.updated', caused_by: 'admin', data: { reference: contact } });
  });

  it('keeps the erased records visible to updated_since, so clients erase their copies', async () => {
    const { contact } = await person(`up${Date.now().toString(36)}`);
    // Before the erasure by construction: the person's time is set to an instant, not waited past.
    const since = new Date('2025-01-01T00:00:00.000Z');
    await setUpdatedAt(api.db, 'contacts', { companyId: company.id, column: 'reference', value: contact }, since);
    await api.admin(`/companies/${company.id}/contacts/${contact}/erase`, { method: 'POST' });
    const after = new Date(since.getTime() + 1).toISOString();
    const list = await call(`/contacts?updated_since=${encodeURIComponent(after)}&page_size=100`);
    const found = list.json.results.find((c: { reference: string }) => c.reference === contact);
    expect(found).toMatchObject({ erased: true, name: null });
  });

  it('is irreversible: a second erase changes nothing, and the same email later makes a new person', async () => {
    const { contact, email } = await person(`ir${Date.now().toString(36)}`);
    await api.admin(`/companies/${company.id}/contacts/${contact}/erase`, { method: 'POST' });
    const again = await api.admin(`/companies/${company.id}/contacts/${contact}/erase`, { method: 'POST' });
    expect(again.json.already_erased).toBe(true);
    const fresh = await call('/contacts', { email });
    expect(fresh.status).toBe(201);
    expect(fresh.json.reference).not.toBe(contact);
    expect((await call(`/contacts/${contact}`, { name: 'Back again' }, 'PATCH')).status).toBe(409);
  });

  it('answers 404 for an unknown person and 400 for a malformed reference', async () => {
    expect((await api.admin(`/companies/${company.id}/contacts/P-0000000000/erase`, { method: 'POST' })).status).toBe(404);
    expect((await api.admin(`/companies/${company.id}/contacts/nope/erase`, { method: 'POST' })).status).toBe(400);
  });
});

describe('the retention rule', () => {
  it('is applied by the scheduler: people untouched for longer than retention_days are erased, no one else', async () => {
    // Its own database: the scheduler scans every company, so other files' data must not be in reach.
    const own = await createTestApi({ ownDatabase: true });
    const saved = { api, company, key };
    try {
      api = own;
      company = await own.createCompany();
      key = (await own.createKey(company.id, { scopes: [...scopes] })).secret;
      const marker = `rt${Date.now().toString(36)}`;
      const old = await person(`${marker}old`);
      const recent = await person(`${marker}new`);
      await own.admin(`/companies/${company.id}`, { method: 'PATCH', body: { settings: { retention_days: 30 } } });
      // Age the first person and everything of theirs by 40 days (an explicit updated_at is kept by the trigger).
      const id = (await own.db.selectFrom('contacts').select('id').where('reference', '=', old.contact).executeTakeFirstOrThrow())
        .id;
      await sql`update contacts set updated_at = now() - interval '40 days' where id = ${id}`.execute(own.db);
      await sql`update leads set updated_at = now() - interval '40 days' where contact_id = ${id}`.execute(own.db);
      await sql`update activities set updated_at = now() - interval '40 days' where contact_id = ${id}`.execute(own.db);
      const report = await runScheduledWork(own.platform.services());
      expect(report.retention).toBe(1);
      expect(report.lead_escalation).toBe(0);
      expect((await call(`/contacts/${old.contact}`)).json.erased).toBe(true);
      expect((await call(`/contacts/${recent.contact}`)).json.erased).toBe(false);
      const event = await own.db
        .selectFrom('events')
        .select('caused_by')
        .where('type', '=', 'contact.updated')
        .where(sql`data->>'reference'`, '=', old.contact)
        .executeTakeFirstOrThrow();
      expect(event.caused_by).toBe('system');
    } finally {
      ({ api, company, key } = saved);
      await own.close();
    }
  });
});

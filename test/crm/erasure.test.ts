import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScheduledWork } from '../../functions/jobs';
import { createTestApi } from '../support/harness';
import { setUpdatedAt } from '../support/times';
import { type World, world } from '../support/world';

let w: World;

beforeAll(async () => {
  w = await world();
});
afterAll(() => w.close());

const erase = (reference: string) =>
  w.adminClient.POST('/admin/v1/companies/{company_id}/contacts/{reference}/erase', {
    params: { path: { company_id: w.company.id, reference } },
  });
const readContact = async (reference: string) =>
  (await w.client.GET('/api/v1/contacts/{reference}', { params: { path: { reference } } })).data!;

/** A person with a lead, a note and a task, every free-text field carrying a recognisable marker. */
async function person(marker: string) {
  const email = `${marker}@example.com`;
  const lead = await w.lead({
    name: `Name ${marker}`,
    email,
    phone: '+971501234567'.replace(/\d{4}$/, String(1000 + Math.floor(Math.random() * 8999))),
    message: `Message ${marker}`,
    page: `https://www.example.com/listing?ref=${marker}`,
    details: { budget: `Budget ${marker}`, bedrooms: 3 },
    consent_version: '2026-01',
  });
  const contact = lead.person;
  const note = await w.client.POST('/api/v1/activities', {
    body: { type: 'note', source: 'crm', external_id: `n-${crypto.randomUUID()}`, person: contact, body: `Note ${marker}` },
  });
  expect(note.response.status, JSON.stringify(note.error)).toBe(201);
  const task = await w.client.POST('/api/v1/tasks', {
    body: { title: `Call ${marker}`, source: 'crm', external_id: `t-${crypto.randomUUID()}`, person: contact },
  });
  expect(task.response.status, JSON.stringify(task.error)).toBe(201);
  return { contact, lead: lead.reference, email };
}

/** Every text column of every table the erased person's data could have reached. */
async function databaseText(): Promise<string> {
  const tables = ['contacts', 'leads', 'activities', 'tasks', 'events', 'audit_log', 'external_ids'];
  const parts: string[] = [];
  for (const table of tables) {
    const rows = await sql<{ t: string }>`select row_to_json(x)::text as t from ${sql.table(table)} x`.execute(w.api.db);
    parts.push(...rows.rows.map((r) => r.t));
  }
  return parts.join('\n');
}

describe('erasure', () => {
  it('empties the person and their leads, removes free text, and leaves no personal data anywhere', async () => {
    const marker = `zq${Date.now().toString(36)}`;
    const { contact, lead, email } = await person(marker);
    // A read with a server key is audited: references only.
    expect(
      (await w.client.GET('/api/v1/contacts/{reference}', { params: { path: { reference: contact } } })).response.status,
    ).toBe(200);
    expect(await databaseText()).toContain(marker);

    const res = await erase(contact);
    expect(res.data).toEqual({ reference: contact, erased: true, already_erased: false });

    expect(await readContact(contact)).toMatchObject({ reference: contact, erased: true, name: null, email: null, phone: null });
    const leadRead = await w.client.GET('/api/v1/leads/{reference}', { params: { path: { reference: lead } } });
    expect(leadRead.data).toMatchObject({ reference: lead, erased: true, message: null, details: null, page: null });
    expect(await databaseText()).not.toContain(marker);
    expect(await databaseText()).not.toContain(email);

    const events = await w.api.db
      .selectFrom('events')
      .select(['type', 'caused_by', 'data'])
      .where('company_id', '=', w.company.id)
      .where('type', '=', 'contact.updated')
      .execute();
    expect(events).toContainEqual({ type: 'contact.updated', caused_by: 'admin', data: { reference: contact } });
  });

  it('keeps the erased records visible to updated_since, so clients erase their copies', async () => {
    const { contact } = await person(`up${Date.now().toString(36)}`);
    // Before the erasure by construction: the person's time is set to an instant, not waited past.
    const since = new Date('2025-01-01T00:00:00.000Z');
    await setUpdatedAt(w.api.db, 'contacts', { companyId: w.company.id, column: 'reference', value: contact }, since);
    await erase(contact);
    const after = new Date(since.getTime() + 1).toISOString();
    const list = await w.client.GET('/api/v1/contacts', { params: { query: { updated_since: after, page_size: 100 } } });
    const found = list.data?.results.find((c) => c.reference === contact);
    expect(found).toMatchObject({ erased: true, name: null });
  });

  it('is irreversible: a second erase changes nothing, and the same email later makes a new person', async () => {
    const { contact, email } = await person(`ir${Date.now().toString(36)}`);
    await erase(contact);
    const again = await erase(contact);
    expect(again.data?.already_erased).toBe(true);
    const fresh = await w.client.POST('/api/v1/contacts', { body: { email } });
    expect(fresh.response.status).toBe(201);
    expect(fresh.data?.reference).not.toBe(contact);
    const back = await w.client.PATCH('/api/v1/contacts/{reference}', {
      params: { path: { reference: contact } },
      body: { name: 'Back again' },
    });
    expect(back.response.status).toBe(409);
  });

  it('answers 404 for an unknown person and 400 for a malformed reference', async () => {
    expect((await erase('P-0000000000')).response.status).toBe(404);
    expect((await erase('nope')).response.status).toBe(400);
  });
});

describe('the retention rule', () => {
  it('is applied by the scheduler: people untouched for longer than retention_days are erased, no one else', async () => {
    // Its own database: the scheduler scans every company, so other files' data must not be in reach.
    const own = await createTestApi({ ownDatabase: true });
    const saved = w;
    try {
      w = await world({ api: own });
      const marker = `rt${Date.now().toString(36)}`;
      const old = await person(`${marker}old`);
      const recent = await person(`${marker}new`);
      await w.adminClient.PATCH('/admin/v1/companies/{company_id}', {
        params: { path: { company_id: w.company.id } },
        body: { settings: { retention_days: 30 } },
      });
      // Age the first person and everything of theirs by 40 days (an explicit updated_at is kept by the trigger).
      const id = (await own.db.selectFrom('contacts').select('id').where('reference', '=', old.contact).executeTakeFirstOrThrow())
        .id;
      await sql`update contacts set updated_at = now() - interval '40 days' where id = ${id}`.execute(own.db);
      await sql`update leads set updated_at = now() - interval '40 days' where contact_id = ${id}`.execute(own.db);
      await sql`update activities set updated_at = now() - interval '40 days' where contact_id = ${id}`.execute(own.db);
      const report = await runScheduledWork(own.platform.services());
      expect(report.retention).toBe(1);
      expect(report.lead_escalation).toBe(0);
      expect((await readContact(old.contact)).erased).toBe(true);
      expect((await readContact(recent.contact)).erased).toBe(false);
      const event = await own.db
        .selectFrom('events')
        .select('caused_by')
        .where('type', '=', 'contact.updated')
        .where(sql`data->>'reference'`, '=', old.contact)
        .executeTakeFirstOrThrow();
      expect(event.caused_by).toBe('system');
    } finally {
      w = saved;
      await own.close();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseContact } from '../../functions/crm/erasure';
import { escalateUnansweredLeads } from '../../functions/crm/escalation';
import type { TestApi } from '../support/harness';
import { type World, world } from '../support/world';

let w: World;
let api: TestApi;
let company: { id: string; host: string };
/** A company without the setting: its leads are never escalated. */
let quiet: World;

beforeAll(async () => {
  w = await world({ settings: { lead_answer_minutes: 30 } });
  ({ api, company } = w);
  quiet = await world({ api });
});
afterAll(() => api.close());

const lead = () => w.lead();
/** PATCH /admin/v1/companies/{company_id} of these settings, through the typed admin client. */
const settings = (companyId: string, changed: Record<string, unknown>) =>
  w.adminClient.PATCH('/admin/v1/companies/{company_id}', {
    params: { path: { company_id: companyId } },
    body: { settings: changed } as never,
  });
/** Makes a lead look as if it arrived `minutes` before `now`. */
const age = (reference: string, now: Date, minutes: number) =>
  api.db
    .updateTable('leads')
    .set({ created_at: new Date(now.getTime() - minutes * 60_000) })
    .where('reference', '=', reference)
    .execute();
const escalations = async (companyId: string) =>
  (
    await api.db
      .selectFrom('events')
      .selectAll()
      .where('company_id', '=', companyId)
      .where('type', '=', 'lead.escalated')
      .execute()
  ).map((e) => ({ caused_by: e.caused_by, data: e.data }));

describe('escalateUnansweredLeads', () => {
  it('escalates, once, each new unanswered lead older than the company’s answer time, with caused_by system', async () => {
    const now = new Date(Date.now() + 60 * 60_000);
    const [late, recent, answered, moved, erased] = [await lead(), await lead(), await lead(), await lead(), await lead()];
    const elsewhere = await quiet.lead();
    for (const l of [late, answered, moved, erased]) await age(l.reference, now, 31);
    await age(recent.reference, now, 29);
    await age(elsewhere.reference, now, 600);
    await w.client.POST('/api/v1/activities', {
      body: { type: 'call', source: 'pbx', external_id: `call-${answered.reference}`, lead: answered.reference },
    });
    await w.client.PATCH('/api/v1/leads/{reference}', {
      params: { path: { reference: moved.reference } },
      body: { status: 'spam' },
    });
    const person = await api.db
      .selectFrom('contacts')
      .select('id')
      .where('reference', '=', erased.person)
      .executeTakeFirstOrThrow();
    await eraseContact(api.db, company.id, person.id, { causedBy: 'system', now: api.clock.now() });

    const first = await escalateUnansweredLeads(api.db, now);
    expect(first).toContain(late.reference);
    for (const l of [recent, answered, moved, erased, elsewhere]) expect(first).not.toContain(l.reference);
    expect(await escalations(company.id)).toEqual([{ caused_by: 'system', data: { reference: late.reference } }]);
    expect(await escalations(quiet.company.id)).toEqual([]);

    const read = await w.client.GET('/api/v1/leads/{reference}', { params: { path: { reference: late.reference } } });
    expect(read.data?.escalated_at).toBe(now.toISOString());

    const again = await escalateUnansweredLeads(api.db, now);
    expect(again).not.toContain(late.reference);
    expect(await escalations(company.id)).toHaveLength(1);

    // Thirty-one minutes later the recent one is due as well.
    const later = await escalateUnansweredLeads(api.db, new Date(now.getTime() + 2 * 60_000));
    expect(later).toContain(recent.reference);
    expect(await escalations(company.id)).toHaveLength(2);
  });

  it('never escalates twice when two runs meet', async () => {
    const now = new Date(Date.now() + 2 * 60 * 60_000);
    const l = await lead();
    await age(l.reference, now, 45);
    const runs = await Promise.all([escalateUnansweredLeads(api.db, now), escalateUnansweredLeads(api.db, now)]);
    expect(runs.flat().filter((r) => r === l.reference)).toHaveLength(1);
    const mine = (await escalations(company.id)).filter((e) => e.data.reference === l.reference);
    expect(mine).toHaveLength(1);
  });

  it('takes the setting from the admin API: a whole number of minutes, or null to switch it off', async () => {
    const bad = await settings(quiet.company.id, { lead_answer_minutes: 0 });
    expect(bad.response.status).toBe(400);
    const off = await settings(company.id, { lead_answer_minutes: null });
    expect(off.response.status).toBe(200);
    const now = new Date(Date.now() + 3 * 60 * 60_000);
    const l = await lead();
    await age(l.reference, now, 600);
    expect(await escalateUnansweredLeads(api.db, now)).not.toContain(l.reference);
    await settings(company.id, { lead_answer_minutes: 30 });
    expect(await escalateUnansweredLeads(api.db, now)).toContain(l.reference);
  });
});

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runScheduledWork } from '../../functions/jobs';
import { seedDemo } from '../../functions/seed';
import { statementJobs } from '../../functions/statements/jobs';
import { createTestApi, type TestApi } from '../support/harness';
import { type StatementWorld, statementWorld } from './support';

/**
 * `owner_statement.ready`: scheduled work announces a month once per owner who has a statement in it, once the month
 * is over and the company's grace days have passed (in its time zone), with the owner's reference and the month only.
 * Its own database: the job scans every company.
 */
let api: TestApi;
beforeAll(async () => {
  api = await createTestApi({ ownDatabase: true });
});
afterEach(() => api.clock.set(null));
afterAll(() => api.close());

/** Runs the statements group's scheduled work at an instant; how many months it announced. */
async function runAt(instant: string) {
  api.clock.set(new Date(instant));
  return (await runScheduledWork(api.platform.services(), statementJobs)).owner_statement_ready as number;
}

const readyEvents = (w: StatementWorld) =>
  api.db
    .selectFrom('events')
    .select(['type', 'data', 'caused_by'])
    .where('company_id', '=', w.company.id)
    .where('type', '=', 'owner_statement.ready')
    .orderBy('created_at')
    .execute();

async function februaryOfTwoOwners(settings: Record<string, unknown> = {}) {
  const w = await statementWorld({ api, settings });
  const [one, two, idle] = [await w.person('One'), await w.person('Two'), await w.person('Idle')];
  const a = await w.lease(one, 'marina-gate-1br-furnished');
  const b = await w.lease(two, 'jvc-2br-townhouse');
  w.on('2027-02-03');
  await w.receive(a.payments[0] as string);
  await w.receive(b.payments[0] as string);
  w.on('2027-03-02');
  await w.receive(a.payments[1] as string);
  return { w, one, two, idle };
}

describe('owner_statement.ready (scheduled work)', () => {
  it('announces each owner’s month once, after the grace days in the company’s time zone, with the reference and month only', async () => {
    const { w, one, two } = await februaryOfTwoOwners();
    // February closes on 6 March (5 grace days) in Dubai, which begins at 2027-03-05T20:00Z.
    expect(await runAt('2027-03-05T19:59:59Z')).toBe(0);
    expect(await readyEvents(w)).toEqual([]);
    expect(await runAt('2027-03-05T20:00:00Z')).toBe(2);
    const events = await readyEvents(w);
    expect(
      events.map((e) => e.data).toSorted((x, y) => String(x.owner_reference).localeCompare(String(y.owner_reference))),
    ).toEqual([one, two].sort().map((owner) => ({ owner_reference: owner, month: '2027-02' })));
    expect(events.every((e) => e.caused_by === 'system')).toBe(true);
    // Once: later runs, and March (still open), add nothing; the months list says when.
    expect(await runAt('2027-03-20T00:00:00Z')).toBe(0);
    expect(await readyEvents(w)).toHaveLength(2);
    const months = await w.client.GET('/api/v1/owner-statements/months', { params: { query: { owner: one } } });
    expect(months.data?.results.map((m) => [m.month, m.status, m.ready_at])).toEqual([
      ['2027-03', 'open', null],
      ['2027-02', 'closed', '2027-03-05T20:00:00.000Z'],
    ]);
    expect(await runAt('2027-04-05T20:00:00Z')).toBe(1);
    expect((await readyEvents(w)).at(-1)?.data).toEqual({ owner_reference: one, month: '2027-03' });
  });

  it('follows statement_grace_days, and announces nothing for a person without a statement', async () => {
    const { w, idle } = await februaryOfTwoOwners({ statement_grace_days: 0 });
    expect(await runAt('2027-02-28T19:59:59Z')).toBe(0);
    expect(await runAt('2027-02-28T20:00:00Z')).toBe(2);
    expect((await readyEvents(w)).map((e) => e.data.owner_reference)).not.toContain(idle);
  });

  it('announces a month once when runs overlap', async () => {
    const { w } = await februaryOfTwoOwners();
    api.clock.set(new Date('2027-03-10T00:00:00Z'));
    const services = api.platform.services();
    const runs = await Promise.all(Array.from({ length: 4 }, () => runScheduledWork(services, statementJobs)));
    expect(runs.reduce((n, r) => n + (r.owner_statement_ready as number), 0)).toBe(2);
    expect(await readyEvents(w)).toHaveLength(2);
  });

  it('announces none of the demo company’s history: months closed when it was seeded count as announced', async () => {
    const now = new Date('2027-06-15T08:00:00Z');
    const { companyId } = await seedDemo(api.db, now);
    const closed = await api.db
      .selectFrom('owner_statements')
      .select(['announced_at'])
      .where('company_id', '=', companyId)
      .where('month', '<', '2027-06-01')
      .execute();
    expect(closed.length).toBeGreaterThan(0);
    expect(closed.every((row) => row.announced_at !== null)).toBe(true);
    await runAt(now.toISOString());
    const events = await api.db
      .selectFrom('events')
      .select('id')
      .where('company_id', '=', companyId)
      .where('type', '=', 'owner_statement.ready')
      .execute();
    expect(events).toEqual([]);
  });

  it('is documented in the OpenAPI webhooks with only the owner and the month', async () => {
    // raw: the OpenAPI document itself, a path the document does not declare
    const doc = (await api.request('/api/v1/openapi.json')).json;
    const body = doc.webhooks['owner_statement.ready'].post.requestBody.content['application/json'].schema;
    const envelope = body.$ref ? doc.components.schemas[body.$ref.split('/').at(-1)] : body;
    const data = envelope.properties.data.$ref
      ? doc.components.schemas[envelope.properties.data.$ref.split('/').at(-1)]
      : envelope.properties.data;
    expect(Object.keys(data.properties).sort()).toEqual(['month', 'owner_reference']);
  });
});

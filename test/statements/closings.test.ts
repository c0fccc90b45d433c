import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runScheduledWork } from '../../functions/jobs';
import { statementJobs } from '../../functions/statements/jobs';
import { createTestApi, type TestApi } from '../support/harness';
import { adminOf } from '../support/world';
import { type StatementWorld, statementWorld } from './support';

/**
 * A closed month stays closed (issue 32, defect 6): closing is a fact recorded when it happens (migration 0031), by
 * the scheduled work that announces the month, by a change of `statement_grace_days` (the months closed under the days
 * it replaces), and read as recorded; the rule of the company's current settings applies only after the last month
 * recorded. Its own database: the scheduled work scans every company.
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

const graceDays = async (w: StatementWorld, days: number) => {
  const res = await adminOf(api).PATCH('/admin/v1/companies/{company_id}', {
    params: { path: { company_id: w.company.id } },
    body: { settings: { statement_grace_days: days } } as never,
  });
  expect(res.response.status, JSON.stringify(res.error)).toBe(200);
  expect((res.data?.settings as Record<string, unknown> | undefined)?.statement_grace_days).toBe(days);
};

const readyEvents = (w: StatementWorld) =>
  api.db
    .selectFrom('events')
    .select('data')
    .where('company_id', '=', w.company.id)
    .where('type', '=', 'owner_statement.ready')
    .execute();

/** What a reader sees of an owner's month: the statement, the months list's entry, and the journal's status. */
async function seen(w: StatementWorld, owner: string, month: string) {
  const statement = await w.statement(owner, month);
  const months = await w.client.GET('/api/v1/owner-statements/months', { params: { query: { owner, from: month, to: month } } });
  const journal = await w.journal(month);
  return {
    status: statement.status,
    closes_on: statement.closes_on,
    lines: statement.lines,
    totals: statement.totals,
    listed: months.data?.results.map((m) => ({ month: m.month, status: m.status, closes_on: m.closes_on })),
    journal: { status: journal.status, closes_on: journal.closes_on, entries: journal.entries.length },
  };
}

/** An owner with October 2027's rent received (a lease of the year, monthly payments), and a person with no line. */
async function octoberOfAnOwner() {
  const w = await statementWorld({ api });
  const owner = await w.person('Owner');
  const idle = await w.person('Idle');
  const lease = await w.lease(owner, 'marina-gate-1br-furnished');
  w.on('2027-10-03');
  await w.receive(lease.payments[9] as string);
  return { w, owner, idle, lease };
}

describe('a closed month', () => {
  it('stays closed, with its lines, when the grace days are raised after owner_statement.ready', async () => {
    const { w, owner } = await octoberOfAnOwner();
    // October closes on 6 November (5 grace days) in Dubai, which begins at 2027-11-05T20:00Z.
    expect(await runAt('2027-11-05T20:00:00Z')).toBe(1);
    expect((await readyEvents(w)).map((e) => e.data)).toEqual([{ owner_reference: owner, month: '2027-10' }]);
    w.on('2027-11-10');
    const before = await seen(w, owner, '2027-10');
    expect(before).toMatchObject({ status: 'closed', closes_on: '2027-11-06' });
    expect(before.lines).toHaveLength(2); // the rent and its fee
    await graceDays(w, 28);
    expect(await seen(w, owner, '2027-10')).toEqual(before);
    // November follows the new days: it closes on 29 December, and is announced then, once.
    expect((await w.statement(owner, '2027-11')).closes_on).toBe('2027-12-29');
    w.on('2027-12-28');
    expect((await w.statement(owner, '2027-11')).status).toBe('open');
    expect(await runAt('2027-12-28T19:59:59Z')).toBe(0);
    expect(await runAt('2027-12-28T20:00:00Z')).toBe(0); // no line in November: nothing to announce
    expect((await w.statement(owner, '2027-11')).status).toBe('closed');
  });

  it('stays closed when the grace days are raised before the scheduled work recorded it', async () => {
    const { w, owner, idle } = await octoberOfAnOwner();
    // No scheduled run: the rule closes October on 6 November, and a reader sees it closed.
    w.on('2027-11-07');
    const before = await seen(w, owner, '2027-10');
    expect(before).toMatchObject({ status: 'closed', closes_on: '2027-11-06' });
    await graceDays(w, 28);
    expect(await seen(w, owner, '2027-10')).toEqual(before);
    // A person with no line that month, and a month in which nothing was booked, closed alike.
    expect(await w.statement(idle, '2027-10')).toMatchObject({ status: 'closed', closes_on: '2027-11-06', lines: [] });
    expect(await w.statement(idle, '2027-09')).toMatchObject({ status: 'closed', lines: [] });
    // The scheduled work announces it at once, though the new days would close it only on 29 November.
    expect(await runAt('2027-11-07T08:00:00Z')).toBe(1);
    expect((await readyEvents(w)).map((e) => e.data)).toEqual([{ owner_reference: owner, month: '2027-10' }]);
  });

  it('closes sooner when the grace days are lowered, and never reopens when they are raised again', async () => {
    const { w, owner } = await octoberOfAnOwner();
    await graceDays(w, 28);
    w.on('2027-11-10');
    expect(await w.statement(owner, '2027-10')).toMatchObject({ status: 'open', closes_on: '2027-11-29' });
    await graceDays(w, 0);
    expect(await w.statement(owner, '2027-10')).toMatchObject({ status: 'closed', closes_on: '2027-11-01' });
    await graceDays(w, 28);
    expect(await w.statement(owner, '2027-10')).toMatchObject({ status: 'closed', closes_on: '2027-11-01' });
    expect(await runAt('2027-11-10T08:00:00Z')).toBe(1);
  });

  it('is what the scheduled work records: a read before the first run agrees with one after it', async () => {
    const { w, owner, idle } = await octoberOfAnOwner();
    const months = ['2027-08', '2027-09', '2027-10', '2027-11'];
    const read = async () =>
      Promise.all(months.map(async (m) => (({ status, closes_on }) => ({ m, status, closes_on }))(await w.statement(idle, m))));
    for (const day of ['2027-11-05', '2027-11-06', '2027-12-06']) {
      w.on(day);
      const before = await read();
      await runAt(`${day}T08:00:00Z`);
      expect(await read(), day).toEqual(before);
    }
    // Runs record each month once, also when they overlap.
    api.clock.set(new Date('2027-12-20T08:00:00Z'));
    const services = api.platform.services();
    await Promise.all(Array.from({ length: 4 }, () => runScheduledWork(services, statementJobs)));
    const recorded = await api.db
      .selectFrom('statement_closings')
      .select(({ fn }) => [fn.countAll<string>().as('rows'), fn.count<string>('month').distinct().as('months')])
      .where('company_id', '=', w.company.id)
      .executeTakeFirstOrThrow();
    expect(recorded.rows).toBe(recorded.months);
    expect(Number(recorded.rows)).toBeGreaterThanOrEqual(2); // from October, its first month with a statement
    expect((await readyEvents(w)).map((e) => e.data)).toEqual([{ owner_reference: owner, month: '2027-10' }]);
  });

  it('counts a closing from when it was recorded, and the record never changes', async () => {
    const { w, owner } = await octoberOfAnOwner();
    await runAt('2027-11-10T08:00:00Z');
    await graceDays(w, 28);
    // Read as of a moment before the closing was recorded: the rule of the settings then in force.
    w.on('2027-11-04');
    expect(await w.statement(owner, '2027-10')).toMatchObject({ status: 'open', closes_on: '2027-11-29' });
    w.on('2027-11-10');
    expect(await w.statement(owner, '2027-10')).toMatchObject({ status: 'closed', closes_on: '2027-11-06' });
    await expect(
      api.db.updateTable('statement_closings').set({ grace_days: 28 }).where('company_id', '=', w.company.id).execute(),
    ).rejects.toThrow(/never changes/);
  });
});

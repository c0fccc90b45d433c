import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useClients, useWorld } from '../support/world';

/**
 * Thirty schedules of one job at once (day, window and who does it changing): on PostgreSQL (DATABASE_URL, as CI runs
 * it) they really overlap, and the job's lock must not lose the row it waited for (404 for a job that exists). On
 * PGlite they queue.
 */
const w = useWorld();
const [writes, reads] = useClients(w, ['write:maintenance'], ['read:maintenance']);

const schedule = (reference: string, body: Record<string, unknown>) =>
  writes.POST('/api/v1/jobs/{reference}/schedule', { params: { path: { reference } }, body: body as never });
const read = async (reference: string) => (await reads.GET('/api/v1/jobs/{reference}', { params: { path: { reference } } })).data;
const refusals = (answers: Array<{ response: Response; error?: unknown }>) =>
  JSON.stringify(answers.filter((a) => a.response.status !== 200).map((a) => a.error));

describe('thirty concurrent schedules of one job', () => {
  it('every one 200, the job ends as one of them sent it', async () => {
    const job = await w.job();
    const contractor = await w.contractor();
    const sent = [
      { day: '2027-02-10', window: { start: '09:00', end: '12:00' }, contractor },
      { day: '2027-02-11', window: null, member: w.members.lina },
      { day: '2027-02-12', window: { start: '13:00', end: '17:00' }, contractor },
    ];
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => schedule(job.reference, sent[i % 3] ?? {})));
    expect(
      answers.map((a) => a.response.status),
      refusals(answers),
    ).toEqual(Array(30).fill(200));
    const final = await read(job.reference);
    expect(final?.status).toBe('scheduled');
    const states = sent.map((s) => ({
      day: s.day,
      window: s.window,
      contractor: s.contractor ?? null,
      member: s.member ?? null,
    }));
    expect(states).toContainEqual({
      day: final?.day,
      window: final?.window,
      contractor: final?.contractor,
      member: final?.member,
    });
  });

  it('of a holiday home blocking its calendar: every one 200, one block, on the day the job ends on', async () => {
    const home = await w.holidayHome();
    const job = await w.job({ home });
    const days = ['2027-03-10', '2027-03-11', '2027-03-12'];
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => schedule(job.reference, { day: days[i % 3], block_calendar: true })),
    );
    expect(
      answers.map((a) => a.response.status),
      refusals(answers),
    ).toEqual(Array(30).fill(200));
    const final = await read(job.reference);
    expect(days).toContain(final?.day);
    expect(final?.calendar).toEqual({ block_wanted: true, blocked: true });
    const blocks = await w.api.db
      .selectFrom('calendar_blocks as b')
      .innerJoin('jobs as j', 'j.id', 'b.job_id')
      .select(sql<string>`b.starts_on::text`.as('day'))
      .where('j.reference', '=', job.reference)
      .execute();
    expect(blocks.map((b) => b.day)).toEqual([final?.day]);
  });
});

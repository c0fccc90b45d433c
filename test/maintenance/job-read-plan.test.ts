import { describe, expect, it } from 'vitest';
import { plansOf, statementStarting, useCaughtWorld } from '../support/plan-cost';
import { homes } from '../support/world';

/**
 * A job's create and its schedule's read keep PostgreSQL's generic plan (functions/maintenance/jobs.ts whoColumns): a
 * contractor not named was a null parameter whose lookup each run's own plan folded away, so the schedule's read was
 * planned anew on every run (the bench: 2,279 plans in 2,269 runs, 1 ms each). Now it is a constant of the text.
 */

const { w, catcher } = useCaughtWorld();

describe("a job's statements that read who is named", () => {
  it('a create naming nobody reads in its generic plan what it reads for its values', async () => {
    const sent = await catcher.during(() => w.job({ home: homes.holiday, category: 'general' }));
    const { generic, custom } = await plansOf(w.api, statementStarting(sent, 'with k as ('));
    expect(generic.scans).toEqual(custom.scans);
  });

  it.each<[string, () => Promise<Record<string, unknown>>]>([
    ['naming nobody, with a calendar block (the bench)', async () => ({ block_calendar: true })],
    ['naming a contractor', async () => ({ contractor: await w.contractor({ trades: ['general'] }), block_calendar: false })],
  ])("a schedule's read reads in its generic plan what it reads for its values: %s", async (_, more) => {
    const { reference } = await w.job({ home: homes.holiday, category: 'general' });
    const body = { day: '2030-02-01', window: { start: '09:00', end: '12:00' }, ...(await more()) };
    const sent = await catcher.during(async () => {
      const res = await w.client.POST('/api/v1/jobs/{reference}/schedule', {
        params: { path: { reference } },
        body: body as never,
      });
      expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    });
    const { generic, custom } = await plansOf(w.api, statementStarting(sent, 'select "jobs".*'));
    expect(generic.scans).toEqual(custom.scans);
  });
});

import { addDays } from '../lib/dates';

/**
 * The maintenance routes' bench inputs: a helpdesk's server key, a new ticket per `POST /jobs` (each creates a job,
 * its external id new), and jobs on every published holiday home, scheduled in turn with `block_calendar` on a new
 * day each time (each request releases the job's previous block and takes the calendar lock of its home).
 */
export type BenchJobs = {
  key: string;
  ticket: () => string;
  nextJob: () => string;
  scheduleBody: () => string;
};

const JOBS = 200;

export async function benchJobs(origin: string, key: string): Promise<BenchJobs> {
  const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` };
  const list = await fetch(`${origin}/api/v1/listings?type=holiday_home&page_size=100`);
  const homes = ((await list.json()) as { results: Array<{ slug: { en: string } }> }).results.map((l) => l.slug.en);
  if (homes.length === 0) throw new Error('no holiday home to schedule jobs on');
  const references: string[] = [];
  for (let i = 0; i < JOBS; i++) {
    const res = await fetch(`${origin}/api/v1/jobs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ home: homes[i % homes.length], category: 'general', problem: `Bench job ${i}` }),
    });
    if (res.status !== 201) throw new Error(`POST /api/v1/jobs answered ${res.status}: ${await res.text()}`);
    references.push(((await res.json()) as { reference: string }).reference);
  }
  let tickets = 0;
  let scheduled = 0;
  let bodies = 0;
  // Far from the stays the bookings bench tiles (the advance window): the blocks never meet a stay.
  const firstDay = addDays(new Date().toISOString().slice(0, 10), 800);
  return {
    key,
    ticket: () =>
      JSON.stringify({
        home: homes[tickets % homes.length],
        category: 'plumbing',
        priority: 'high',
        problem: 'The kitchen tap leaks under the sink.',
        estimate: '450.00',
        external: { source: 'helpdesk', id: `bench-${process.pid}-${tickets++}` },
      }),
    nextJob: () => `/api/v1/jobs/${references[scheduled++ % references.length]}/schedule`,
    scheduleBody: () =>
      JSON.stringify({ day: addDays(firstDay, bodies++ % 1000), window: { start: '09:00', end: '12:00' }, block_calendar: true }),
  };
}

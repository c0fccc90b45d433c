import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedMaintenanceDemo } from '../../functions/maintenance/demo';
import { day } from '../stay/support';
import { type TestClient, testClient } from '../support/client';
import { createTestApi, type TestApi } from '../support/harness';
import { createKey, demoCompany } from '../support/world';

let api: TestApi;
let company: { id: string; host: string };
let reads: TestClient;
beforeAll(async () => {
  api = await createTestApi();
  company = await demoCompany(api, { bookings_enabled: true });
  const row = await api.db.selectFrom('companies').selectAll().where('id', '=', company.id).executeTakeFirstOrThrow();
  await api.db.transaction().execute((trx) => seedMaintenanceDemo(trx, row, new Date()));
  const key = (await createKey(api, company.id, { scopes: ['read:maintenance'] })).secret;
  reads = testClient(api, { host: company.host, serverKey: key });
});
afterAll(() => api.close());

const list = async (path: '/contractors' | '/jobs' | '/job-charges' | '/inspections') => {
  const res = await reads.GET(`/api/v1${path}`, { params: { query: { page_size: 100 } } });
  if (!res.data) throw new Error(`${path}: ${JSON.stringify(res.error)}`);
  return res.data.results as Array<Record<string, any>>;
};

describe('the maintenance demo', () => {
  it('has contractors active and stopped, jobs in every status, charges booked, paid and cancelled, inspections', async () => {
    const contractors = await list('/contractors');
    expect(new Set(contractors.map((c) => c.status))).toEqual(new Set(['active', 'stopped']));
    expect(contractors.map((c) => c.kind).sort()).toEqual(['firm', 'firm', 'sole_trader']);
    const jobs = await list('/jobs');
    expect(new Set(jobs.map((j) => j.status))).toEqual(new Set(['open', 'scheduled', 'done', 'cancelled']));
    const warnings = jobs.flatMap((j) => j.warnings.map((w: { code: string }) => w.code));
    expect(warnings).toContain('approval_needed');
    expect(jobs.filter((j) => j.calendar.blocked)).toHaveLength(1);
    const charges = await list('/job-charges');
    expect(new Set(charges.map((c) => c.status))).toEqual(new Set(['booked', 'paid', 'cancelled']));
    expect(charges.every((c) => c.booked_owner !== null)).toBe(true);
    expect((await list('/inspections')).length).toBeGreaterThanOrEqual(2);
  });

  it('blocks the holiday studio’s calendar on the scheduled job’s day', async () => {
    const shown = await testClient(api, { host: company.host }).GET('/api/v1/listings/{slug}/availability', {
      params: { path: { slug: 'jvc-studio-holiday-home' }, query: { from: day(0), to: day(30) } },
    });
    expect(shown.data?.blocked).toContainEqual({ start: day(14), end: day(15) });
  });
});

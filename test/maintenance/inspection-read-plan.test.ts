import { describe, expect, it } from 'vitest';
import { plansOf, statementStarting, useCaughtWorld } from '../support/plan-cost';
import { homes, leasesOf } from '../support/world';

/**
 * An inspection's plan read keeps PostgreSQL's generic plan (functions/maintenance/inspections.ts): a lease or a home
 * not named was a null parameter whose lookup each run's own plan folded away, so PostgreSQL kept planning it anew
 * (as a deal create's read did: test/pipelines/deal-create-statement.test.ts). Now a lookup not named is not in the text.
 */

const { w, catcher } = useCaughtWorld();

describe("an inspection's plan read", () => {
  it.each<[string, () => Promise<Record<string, unknown>>]>([
    ['a home, no lease', async () => ({ kind: 'routine', home: homes.lease })],
    [
      'a lease, no home',
      async () => ({ kind: 'move_in', lease: (await leasesOf(w).active({ home: homes.leases[0] })).reference }),
    ],
  ])('reads in its generic plan what it reads for its values: %s', async (_, body) => {
    const sent = await catcher.during(async () => {
      const res = await w.client.POST('/api/v1/inspections', {
        body: { planned_on: '2030-02-01', areas: [{ name: 'Kitchen' }], ...(await body()) } as never,
      });
      expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    });
    const { generic, custom } = await plansOf(w.api, statementStarting(sent, 'select k.existing'));
    expect(generic.scans).toEqual(custom.scans);
  });
});

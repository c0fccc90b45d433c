import { describe, expect, it } from 'vitest';
import { plansOf, statementStarting, useCaughtWorld } from '../support/plan-cost';

/**
 * A viewing's create reads its deal and the home the body names; a home not named is not in the text
 * (functions/pipelines/viewings.ts namedColumns), so the read's generic plan reads what the plan for a body's own
 * values reads, and PostgreSQL keeps it (test/support/plan-cost.ts).
 */

const { w, catcher } = useCaughtWorld({ pipelines: true });

describe("a viewing's create read", () => {
  it.each<[string, () => Record<string, unknown>]>([
    ['the deal’s home (none named)', () => ({})],
    ['a home named', () => ({ home: w.homes.sale })],
  ])('reads in its generic plan what it reads for its values: %s', async (_, more) => {
    const { reference: deal } = await w.deal({ home: w.homes.sale });
    const sent = await catcher.during(async () => {
      const res = await w.client.POST('/api/v1/viewings', {
        body: { deal, time: '2030-01-15T10:00:00Z', ...more() } as never,
      });
      expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    });
    const { generic, custom } = await plansOf(w.api, statementStarting(sent, 'select k.existing, deal.id as deal_id_read'));
    expect(generic.scans).toEqual(custom.scans);
  });
});

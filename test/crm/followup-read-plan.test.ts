import { describe, expect, it } from 'vitest';
import { plansOf, statementStarting, useCaughtWorld } from '../support/plan-cost';

/**
 * A follow-up's create read (a task's; functions/crm/followups.ts) keeps PostgreSQL's generic plan: a lead not named
 * was a null parameter, and the person found by a `case` on a null one, lookups each run's own plan folded away, so
 * PostgreSQL kept planning it anew (as a deal create's read did). Now what is not named is not in the text.
 */

const { w, catcher } = useCaughtWorld();

describe("a task's create read", () => {
  it.each<[string, (lead: { reference: string; person: string }) => Record<string, unknown>]>([
    ['a person, no lead', (lead) => ({ person: lead.person })],
    ['a lead, no person', (lead) => ({ lead: lead.reference })],
    ['neither', () => ({})],
  ])('reads in its generic plan what it reads for its values: %s', async (_, links) => {
    const lead = await w.lead();
    const sent = await catcher.during(async () => {
      const res = await w.client.POST('/api/v1/tasks', {
        body: { title: 'Call back', source: 'crm', external_id: `t-${crypto.randomUUID()}`, ...links(lead) } as never,
      });
      expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    });
    const { generic, custom } = await plansOf(w.api, statementStarting(sent, 'select k.existing'));
    expect(generic.scans).toEqual(custom.scans);
  });
});

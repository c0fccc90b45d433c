import type { ScheduledJob } from '../../lib/scheduler';
import { applyRetention } from './erasure';
import { escalateUnansweredLeads } from './escalation';

/** The CRM's scheduled work, at the scheduler's `now`: leads waiting too long for a first answer, and the retention rule. */
export const crmJobs: ScheduledJob[] = [
  { name: 'lead_escalation', run: async ({ db, now }) => (await escalateUnansweredLeads(db, now())).length },
  { name: 'retention', run: ({ db, now }) => applyRetention(db, now()) },
];

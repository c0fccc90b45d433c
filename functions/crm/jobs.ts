import type { ScheduledJob } from '../../lib/scheduler';
import { applyRetention } from './erasure';
import { escalateUnansweredLeads } from './escalation';

/** The CRM's scheduled work: leads waiting too long for a first answer, and the retention rule. */
export const crmJobs: ScheduledJob[] = [
  { name: 'lead_escalation', run: ({ db }) => escalateUnansweredLeads(db).then((references) => references.length) },
  { name: 'retention', run: ({ db }) => applyRetention(db) },
];

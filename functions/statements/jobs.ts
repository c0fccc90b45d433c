import type { ScheduledJob } from '../../lib/scheduler';
import { announceReadyStatements } from './ready';

/** Owners' months that closed (owner_statement.ready, once per owner and month). */
export const statementJobs: ScheduledJob[] = [
  { name: 'owner_statement_ready', run: ({ db, now }) => announceReadyStatements(db, now()) },
];

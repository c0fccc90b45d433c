import type { ScheduledJob } from '../../lib/scheduler';
import { markMissedViewings } from './viewings';

/** The pipelines' scheduled work: planned viewings whose time passed without an outcome become missed. */
export const pipelineJobs: ScheduledJob[] = [
  { name: 'viewing_missed', run: ({ db, now }) => markMissedViewings(db, now()).then((references) => references.length) },
];

import type { TriggerTable } from '../lib/event-triggers';

/** Fixtures of `events trigger` (issue 38) for the scheduled types; functions/triggers.ts lays them over its table. */
export const scheduledTriggers: Partial<TriggerTable> = {};

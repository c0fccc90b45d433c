import type { TriggerTable } from '../lib/event-triggers';

/** Fixtures of `events trigger` (issue 38) for the billing types; functions/triggers.ts lays them over its table. */
export const billingTriggers: Partial<TriggerTable> = {};

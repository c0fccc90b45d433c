/**
 * The one place the platform reads the real time. Everything else takes the time as an input: handlers from
 * `services.now()` (set by tests), scheduled jobs from the scheduler's `now`, domain functions as a `now`
 * argument. The layout test fails on `new Date()` without arguments or `Date.now()` anywhere else.
 */
export const systemClock = (): Date => new Date();

/** Milliseconds since the epoch by the real clock, for timers and rate limits that measure intervals. */
export const systemMillis = (): number => Date.now();

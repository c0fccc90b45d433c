import { sql } from 'kysely';

/**
 * The one place the platform reads the real time. Everything else takes the time as an input: handlers from
 * `services.now()` (set by tests), scheduled jobs from the scheduler's `now`, domain functions as a `now`
 * argument. The layout test fails on `new Date()` without arguments or `Date.now()` anywhere else.
 */
export const systemClock = (): Date => new Date();

/** Milliseconds since the epoch by the real clock, for timers and rate limits that measure intervals. */
export const systemMillis = (): number => Date.now();

/**
 * `updated_at` as every write stamps it: the database's clock when the statement runs (`clock_timestamp()`), never the
 * app server's nor the services' clock (docs/api-reference.md, "updated_at is always the database's clock"), so records
 * written through different servers sort consistently for sync clients. `.set({ ...set, updated_at: stamp })` in a
 * query builder, `updated_at = ${stamp}` in SQL; the layout test finds any other value.
 */
export const stamp = sql<Date>`clock_timestamp()`;

import { sql } from 'kysely';
import type { Db, Executor } from './db/index';
import { iso } from './dates';

/**
 * Outbound work paused on a copy of the database (issue 32, defect 8; migration 0029). A copy made from a backup
 * (`restore`, a folder made from PGLITE_TEMPLATE) or exported for PostgreSQL (`export`) holds the original's webhook
 * subscriptions, due deliveries, calendar imports and rebuild hooks: the copy is marked where it is made (one
 * `outbound_pause` row), and while the row exists nothing that reaches outside runs:
 *
 * - scheduled jobs declared `outbound` (the outbox sweep, rebuild hooks, calendar-import syncs) are held by the
 *   scheduler (lib/scheduler.ts), which counts each run it held;
 * - a delivery is never claimed for an attempt (lib/webhooks/deliver.ts), whoever asks (the Node dispatcher, a
 *   Worker's sweep, a QStash callback), and nothing is handed to QStash (lib/webhooks/qstash.ts);
 * - the Node server's dispatcher sleeps until the row is gone (lib/node/background.ts).
 *
 * Requests are served as usual; what they queue (events, deliveries, imports due) waits. The operator resumes with
 * `npm run admin -- outbound resume` (POST /admin/v1/outbound/resume).
 */
export type OutboundPause = { paused_at: Date; reason: string; held_runs: number; last_held_at: Date | null };

/** How the admin API and the start show it. */
export type OutboundStatus = {
  status: 'running' | 'paused';
  paused_at: string | null;
  reason: string | null;
  held_runs: number;
  last_held_at: string | null;
};

/** The pause, when the database is paused. */
export async function outboundPause(db: Executor): Promise<OutboundPause | undefined> {
  return db.selectFrom('outbound_pause').select(['paused_at', 'reason', 'held_runs', 'last_held_at']).executeTakeFirst();
}

/**
 * A scheduler run's question, in one statement: the pause (when there is one), its held runs counted with this one.
 * Undefined: outbound work runs.
 */
export async function holdOutbound(db: Db, now: Date): Promise<OutboundPause | undefined> {
  return db
    .updateTable('outbound_pause')
    .set((eb) => ({ held_runs: eb('held_runs', '+', 1), last_held_at: now }))
    .returning(['paused_at', 'reason', 'held_runs', 'last_held_at'])
    .executeTakeFirst();
}

/** Marks the database a copy whose outbound work waits for the operator (a second mark keeps the first). */
export async function pauseOutbound(db: Executor, now: Date, reason: string): Promise<void> {
  await db
    .insertInto('outbound_pause')
    .values({ paused_at: now, reason })
    .onConflict((oc) => oc.column('only_row').doNothing())
    .execute();
}

/** The operator's resume, in one statement: what was paused (or nothing), now running. */
export async function resumeOutbound(db: Db): Promise<{ status: 'running'; resumed: OutboundStatus | null }> {
  const row = await db
    .deleteFrom('outbound_pause')
    .returning(['paused_at', 'reason', 'held_runs', 'last_held_at'])
    .executeTakeFirst();
  return { status: 'running', resumed: row ? presentPause(row) : null };
}

/** The status the admin API answers. */
export async function outboundStatus(db: Db): Promise<OutboundStatus> {
  return presentPause(await outboundPause(db));
}

export function presentPause(pause: OutboundPause | undefined): OutboundStatus {
  return {
    status: pause ? 'paused' : 'running',
    paused_at: pause ? iso(pause.paused_at) : null,
    reason: pause?.reason ?? null,
    held_runs: pause?.held_runs ?? 0,
    last_held_at: pause ? iso(pause.last_held_at) : null,
  };
}

/** A condition of the statement that would start outbound work (any query, aliased or not): true unless paused. */
export const outboundRunning = sql<boolean>`not exists (select 1 from outbound_pause)`;

/** The start's line, and the admin command line's hint: what is paused and how to resume. */
export function pausedLine(pause: OutboundPause, resume: string): string {
  return `PAUSED since ${iso(pause.paused_at)} (${pause.reason}): webhooks, calendar imports and rebuild hooks wait; requests are served. Resume once this copy is the one to run: ${resume}`;
}

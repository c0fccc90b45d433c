import { sql } from 'kysely';
import type { Company } from '../schema/platform/db';
import type { Keyring } from './crypto-jwe';
import type { EventType } from '../schema/platform/events';
import { randomToken } from './crypto';
import { iso } from './dates';
import type { Db, Trx } from './db/index';
import { ApiError } from './errors';
import type { WebhookRuntime } from './webhooks/types';

/**
 * Test events on demand (issue 38, `events trigger`): a type's fixture makes, in a development company, the records
 * whose real operations emit that event, as Stripe's `stripe trigger` runs its fixtures. Every event the fixture's
 * transaction records is marked: its data carries `trigger_id` (lib/events.ts reads `app.event_trigger`, set here for
 * this transaction only), so a receiver tells a test event from a real one and the answer lists exactly them.
 */

/**
 * What a fixture's steps work with: the trigger's transaction (every step in it; `db` is the same, typed for the
 * operations that take one), the company, the time, a fresh token, the deployment's keyring for personal data, and its
 * webhook machinery (a fixture's own endpoint's signing secret is sealed by it).
 */
export type TriggerContext = {
  trx: Trx;
  db: Db;
  company: Company;
  now: Date;
  token: string;
  keyring: Keyring | undefined;
  webhooks?: WebhookRuntime;
};

/** A type's fixture: its steps, or why this deployment cannot make that event happen on demand. */
export type TriggerFixture = { steps: (ctx: TriggerContext) => Promise<void> } | { unavailable: string };

/** The one table of fixtures: every type of the catalogue (functions/triggers.ts). */
export type TriggerTable = Record<EventType, TriggerFixture>;

let fixtures: TriggerTable | undefined;

/** The table the composition (functions/app.ts) provides: lib/ never imports a group. */
export function provideEventTriggers(table: TriggerTable): void {
  fixtures = table;
}

export type TriggeredEvent = { id: string; type: string; created_at: string; data: Record<string, unknown> };
export type Triggered = { trigger_id: string; type: EventType; events: TriggeredEvent[] };

/**
 * Runs the fixture of `type` for the company in one transaction and answers the events it recorded, oldest first.
 * Refused (403) for a production company; 409 for a type whose fixture is unavailable here.
 */
export async function triggerEvent(
  db: Db,
  company: Company,
  type: EventType,
  now: Date,
  keyring: Keyring | undefined,
  webhooks?: WebhookRuntime,
): Promise<Triggered> {
  if (company.environment !== 'development') {
    throw new ApiError('forbidden', 'Test events are made only in a development company (its environment is production).');
  }
  const fixture = fixtures?.[type];
  if (!fixture) throw new ApiError('conflict', `No fixture makes ${type} in this deployment.`);
  if ('unavailable' in fixture) throw new ApiError('conflict', `${type} cannot be triggered here: ${fixture.unavailable}`);
  const token = randomToken(12).toLowerCase();
  const triggerId = `trg_${token}`;
  const rows = await db.transaction().execute(async (trx) => {
    await sql`select set_config('app.event_trigger', ${triggerId}, true)`.execute(trx);
    await fixture.steps({ trx, db: trx as unknown as Db, company, now, token, keyring, webhooks });
    const recorded = await trx
      .selectFrom('events')
      .select(['id', 'type', 'created_at', 'data'])
      .where('company_id', '=', company.id)
      .where(sql<string>`data ->> 'trigger_id'`, '=', triggerId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    // A fixture that did not make its event (the company's data stood in its way) leaves nothing behind.
    if (!recorded.some((e) => e.type === type)) {
      throw new ApiError('conflict', `The fixture of ${type} ran in this company but recorded no ${type}: nothing was kept.`);
    }
    return recorded;
  });
  const events = rows.map((e) => ({
    id: e.id,
    type: e.type,
    created_at: iso(e.created_at),
    data: e.data as Record<string, unknown>,
  }));
  return { trigger_id: triggerId, type, events };
}

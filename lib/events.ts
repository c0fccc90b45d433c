import { type Expression, type OperationNodeSource, type RawBuilder, sql } from 'kysely';
import type { Executor, Trx } from './db/index';
import { randomToken } from './crypto';
import type { EventType } from '../schema/platform/events';

export type { EventType };

/**
 * caused_by values of the spec: admin, system, website, or api:<key prefix>; and inbound:<source> for what an inbound
 * channel's sender caused (docs/api-reference.md, "Inbound channels").
 */
export type CausedBy = 'admin' | 'system' | 'website' | `api:${string}` | `inbound:${string}`;

/** Event payloads carry ids and references only, never record content. */
export type EventData = Record<string, string | number | boolean | null>;

export const newEventId = () => `evt_${randomToken(24)}`;

/**
 * Records an event in the outbox inside the caller's transaction, and fans it out there too: one pending
 * delivery per enabled subscription of the company that takes this type. Both exist exactly when the change
 * they announce is committed, so a rolled-back change is never delivered. One statement.
 * The deliveries are handed to their transport after the request (lib/request-lifecycle.ts) and by the scheduled sweep.
 * The first attempt is due at the transaction's time cut to milliseconds: dispatchers compare it with a JS Date
 * (milliseconds), and a due time microseconds past "now" would otherwise skip a delivery made in the same
 * millisecond as the dispatch (seen once in CI on PostgreSQL).
 */
export async function recordEvent(trx: Trx, event: EventInput): Promise<string> {
  const id = newEventId();
  await sql`with happened as (values (true)), ${eventCtes('recorded', id, event, 'happened')} select 1`.execute(trx);
  return id;
}

/** An event to record: its company, type (one of the catalogue's: a misspelt type does not compile), cause and payload. */
export type EventInput = { companyId: string; type: EventType; causedBy: CausedBy; data: EventData };

/**
 * A write and the event that announces it, in one statement (one round trip instead of two): `write` (an
 * insert or update with `returning`) runs as the CTE `subject`; the event and its deliveries are recorded when
 * it returned a row, as {@link recordEvent} records them. Answers the write's rows.
 */
export async function writeWithEvent<Row>(
  executor: Executor,
  write: Expression<unknown> | OperationNodeSource,
  event: EventInput,
): Promise<Row[]> {
  const { rows } = await sql<Row>`
    with subject as (${write}), ${eventCtes('subject', newEventId(), event, 'subject')}
    select * from subject
  `.execute(executor);
  return rows;
}

/** An event as a statement records it: its values, or SQL (a prepared statement's slots, lib/db/prepared.ts). */
export type EventSql = {
  companyId: string | RawBuilder<string>;
  type: EventType;
  causedBy: CausedBy | RawBuilder<string>;
};

/**
 * The CTEs `<name>_event` and `<name>_deliveries` of a statement: the event, recorded once if the CTE `source`
 * (an earlier CTE of the same statement) has a row, and one pending delivery per enabled subscription of the
 * company that takes its type. `name` and `source` are the caller's constants, never input. `data`, when given,
 * is the payload as SQL over that row (`happened.<column>`), for what only the statement knows (e.g. the
 * reference of a person it matched); otherwise `event.data`.
 */
export function eventCtes(
  name: string,
  id: string | RawBuilder<string>,
  event: EventSql & { data?: EventData },
  source: string,
  data?: RawBuilder<unknown>,
): RawBuilder<unknown> {
  const payload = data ?? sql`${JSON.stringify(event.data ?? {})}::jsonb`;
  return eventsCtes(
    name,
    event,
    sql`select ${id}::text as id, ${payload} as data from (select * from ${sql.raw(source)} limit 1) as happened`,
  );
}

/**
 * The payload as recorded: `happening.data`, plus `trigger_id` when the transaction runs a test event's fixture
 * (lib/event-triggers.ts sets `app.event_trigger` for its transaction only): a triggered event is marked as such.
 */
const triggeredData = sql`happening.data || jsonb_strip_nulls(jsonb_build_object('trigger_id', nullif(current_setting('app.event_trigger', true), '')))`;

/**
 * The CTEs `<name>_event` and `<name>_deliveries`: one event of `event.type` per row of `rows` (a select giving
 * `id`, the event's id, and `data`, its payload as jsonb), each with its deliveries as {@link eventCtes} records them.
 */
export function eventsCtes(name: string, event: EventSql, rows: RawBuilder<unknown>): RawBuilder<unknown> {
  const eventCte = sql.raw(`${name}_event`);
  return sql`
    ${eventCte} as (
      insert into events (id, company_id, type, caused_by, data)
      select happening.id, ${event.companyId}::uuid, ${event.type}, ${event.causedBy}::text, ${triggeredData}
      from (${rows}) as happening
      returning id, company_id
    ),
    ${sql.raw(`${name}_deliveries`)} as (
      insert into webhook_deliveries (company_id, event_id, subscription_id, next_attempt_at)
      select e.company_id, e.id, s.id, date_trunc('milliseconds', now())
      from ${eventCte} as e join webhook_subscriptions s on s.company_id = e.company_id
      where s.enabled and (${event.type} = any (s.event_types) or '*' = any (s.event_types))
      returning 1
    )`;
}

import { sql } from 'kysely';
import type { Trx } from './db/index';
import { randomToken } from './crypto';

/** caused_by values of the spec: admin, system, website, or api:<key prefix>. */
export type CausedBy = 'admin' | 'system' | 'website' | `api:${string}`;

/** Event payloads carry ids and references only, never record content. */
export type EventData = Record<string, string | number | boolean | null>;

export const newEventId = () => `evt_${randomToken(24)}`;

/**
 * Records an event in the outbox inside the caller's transaction, and fans it out there too: one pending
 * delivery per enabled subscription of the company that takes this type. Both exist exactly when the change
 * they announce is committed, so a rolled-back change is never delivered. One statement.
 * The deliveries are handed to their transport after the request (lib/app.ts) and by the scheduled sweep.
 * The first attempt is due at the transaction's time cut to milliseconds: dispatchers compare it with a JS Date
 * (milliseconds), and a due time microseconds past "now" would otherwise skip a delivery made in the same
 * millisecond as the dispatch (seen once in CI on PostgreSQL).
 */
export async function recordEvent(
  trx: Trx,
  event: { companyId: string; type: string; causedBy: CausedBy; data: EventData },
): Promise<string> {
  const id = newEventId();
  await sql`
    with event as (
      insert into events (id, company_id, type, caused_by, data)
      values (${id}, ${event.companyId}, ${event.type}, ${event.causedBy}, ${JSON.stringify(event.data)}::jsonb)
      returning id, company_id
    )
    insert into webhook_deliveries (company_id, event_id, subscription_id, next_attempt_at)
    select event.company_id, event.id, s.id, date_trunc('milliseconds', now())
    from event join webhook_subscriptions s on s.company_id = event.company_id
    where s.enabled and (${event.type} = any (s.event_types) or '*' = any (s.event_types))
  `.execute(trx);
  return id;
}

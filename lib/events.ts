import type { Trx } from './db/index';
import { randomToken } from './crypto';

/** caused_by values of the spec: admin, system, website, or api:<key prefix>. */
export type CausedBy = 'admin' | 'system' | 'website' | `api:${string}`;

/** Event payloads carry ids and references only, never record content. */
export type EventData = Record<string, string | number | boolean | null>;

/**
 * Records an event in the outbox inside the caller's transaction: it exists exactly when the change it
 * announces is committed. Delivery reads the outbox afterwards.
 */
export async function recordEvent(
  trx: Trx,
  event: { companyId: string; type: string; causedBy: CausedBy; data: EventData },
): Promise<string> {
  const id = `evt_${randomToken(24)}`;
  await trx
    .insertInto('events')
    .values({
      id,
      company_id: event.companyId,
      type: event.type,
      caused_by: event.causedBy,
      data: JSON.stringify(event.data),
    })
    .execute();
  return id;
}

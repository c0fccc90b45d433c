import { findCompany } from '../../lib/admin-route';
import type { Db } from '../../lib/db/index';
import { iso } from '../../lib/dates';
import type { Keyring } from '../../lib/crypto-jwe';
import { triggerEvent } from '../../lib/event-triggers';
import type { EventType } from '../../schema/platform/events';
import { notFound } from '../../lib/errors';
import { pageOf, paginate } from '../../lib/pagination';
import { presentDeliveries, presentNewDelivery } from '../../lib/webhooks/present';
import type { WebhookRuntime } from '../../lib/webhooks/types';
import { replayEvent } from './webhooks';

const eventSort = {
  name: 'events',
  columns: [
    { ref: 'created_at', direction: 'desc', type: 'timestamptz' },
    { ref: 'id', direction: 'desc', type: 'text' },
  ],
} as const;
type Page = { page_size: number; cursor?: string };

/** A page of the company's events, newest first, narrowed to one type when given (404 without the company). */
export async function eventsPage(db: Db, companyId: string, query: Page & { type?: string }) {
  await findCompany(db, companyId);
  const rows = await paginate(
    db
      .selectFrom('events')
      .selectAll()
      .where('company_id', '=', companyId)
      .$if(query.type !== undefined, (qb) => qb.where('type', '=', query.type as string)),
    eventSort,
    query,
  ).execute();
  const page = pageOf(rows, eventSort, query.page_size);
  const results = page.rows.map((e) => ({
    id: e.id,
    type: e.type,
    created_at: iso(e.created_at),
    caused_by: e.caused_by,
    data: e.data,
    published_at: iso(e.published_at),
  }));
  return { results, next_cursor: page.next_cursor };
}

/** Every delivery of an event, oldest first, with its attempts (404 when the company has no such event). */
export async function deliveriesOfEvent(db: Db, companyId: string, eventId: string) {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('company_id', '=', companyId)
    .where('event_id', '=', eventId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  if (rows.length === 0) {
    const event = db.selectFrom('events').select('id').where('company_id', '=', companyId).where('id', '=', eventId);
    if (!(await event.executeTakeFirst())) throw notFound(`The event ${eventId}`);
  }
  return presentDeliveries(
    db,
    rows.map((r) => r.id),
  );
}

/** The event delivered again to one subscription, its new delivery as shown. */
export async function replayed(db: Db, companyId: string, eventId: string, subscriptionId: string, now: Date) {
  return presentNewDelivery(await replayEvent(db, companyId, eventId, subscriptionId, now));
}

/** A test event made in the company (lib/event-triggers.ts): 404 without the company. */
export async function triggered(
  db: Db,
  companyId: string,
  type: EventType,
  now: Date,
  keyring: Keyring | undefined,
  webhooks: WebhookRuntime,
) {
  return triggerEvent(db, await findCompany(db, companyId), type, now, keyring, webhooks);
}

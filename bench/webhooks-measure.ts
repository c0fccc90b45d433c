/** The two measurements of bench/webhooks.ts, on a migrated database and a loopback receiver. */
import { randomBytes } from 'node:crypto';
import { writeAudit } from '../lib/audit';
import type { Db } from '../lib/db/index';
import { recordEvent } from '../lib/events';
import type { NodePlatform } from '../lib/node/platform';
import { eventBody, signedHeaders } from '../lib/webhooks/attempt';
import { dispatchDue } from '../lib/webhooks/local';
import { userAgent } from '../lib/webhooks/types';

const BATCH = 50; // what the Node server's dispatcher takes per round (lib/node/background.ts)
const CONCURRENCY = 10; // dispatchDue's default

export async function company(platform: NodePlatform, name: string, subscriptions: number, url: string): Promise<string> {
  const db = platform.handle.db;
  const { id } = await db
    .insertInto('companies')
    .values({ name, environment: 'development', currency: 'AED', time_zone: 'Asia/Dubai', settings: '{}' })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (let i = 0; i < subscriptions; i++) {
    const sub = await db
      .insertInto('webhook_subscriptions')
      .values({ company_id: id, url })
      .returning('id')
      .executeTakeFirstOrThrow();
    const ciphertext = await platform.webhooks.secrets.encrypt(`whsec_${randomBytes(32).toString('base64')}`, sub.id);
    await db.insertInto('webhook_secrets').values({ subscription_id: sub.id, ciphertext }).execute();
  }
  return id;
}

/** Records `events` events for one subscription, then times the dispatcher until none is due. */
export async function measureDispatcher(platform: NodePlatform, hook: string, events: number) {
  const db = platform.handle.db;
  const target = await company(platform, 'Dispatch', 1, hook);
  for (let done = 0; done < events; done += 100) {
    await db.transaction().execute(async (trx) => {
      for (let i = done; i < Math.min(done + 100, events); i++) {
        await recordEvent(trx, { companyId: target, type: 'lead.created', causedBy: 'system', data: { reference: `L-${i}` } });
      }
    });
  }
  const started = performance.now();
  while ((await dispatchDue(db, platform.webhooks, { limit: BATCH, concurrency: CONCURRENCY })) > 0) {}
  const seconds = (performance.now() - started) / 1000;
  const { n } = await db
    .selectFrom('webhook_deliveries')
    .select(db.fn.countAll<string>().as('n'))
    .where('status', '=', 'succeeded')
    .executeTakeFirstOrThrow();
  return { seconds, succeeded: Number(n), batch: BATCH, concurrency: CONCURRENCY };
}

/** The baseline: the same number of signed POSTs of the same body, as many at a time, without the database. */
export async function measureBarePosts(hook: string, count: number) {
  const event = {
    id: 'evt_bench',
    type: 'lead.created',
    created_at: new Date(),
    caused_by: 'system',
    data: { reference: 'L-1' },
  };
  const body = eventBody(event);
  const headers = signedHeaders([`whsec_${randomBytes(32).toString('base64')}`], event.id, new Date(), body, userAgent);
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next++ < count) {
      const res = await fetch(hook, { method: 'POST', headers, body, redirect: 'manual' });
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { seconds: (performance.now() - started) / 1000 };
}

export const writeVariants = [
  { name: 'audit row only', subscriptions: -1 },
  { name: 'audit row + recordEvent, 0 subscriptions', subscriptions: 0 },
  { name: 'audit row + recordEvent, 1 matching subscription', subscriptions: 1 },
  { name: 'audit row + recordEvent, 5 matching subscriptions', subscriptions: 5 },
];

/** Milliseconds per write transaction of each variant: sequential, after a warm-up, interleaved in rounds. */
export async function measureWrites(platform: NodePlatform, hook: string, writes: number, rounds = 5): Promise<number[]> {
  const db: Db = platform.handle.db;
  const companies: string[] = [];
  for (const [i, v] of writeVariants.entries())
    companies.push(await company(platform, `Write ${i}`, Math.max(0, v.subscriptions), hook));
  const write = (i: number) =>
    db.transaction().execute(async (trx) => {
      const companyId = companies[i]!;
      await writeAudit(trx, { companyId, actor: 'system', action: 'bench.write' });
      if (writeVariants[i]!.subscriptions >= 0) {
        await recordEvent(trx, { companyId, type: 'contact.updated', causedBy: 'system', data: { reference: 'C-1' } });
      }
    });
  for (let i = 0; i < writeVariants.length; i++) for (let n = 0; n < 100; n++) await write(i);
  const totals = writeVariants.map(() => 0);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < writeVariants.length; i++) {
      const t0 = performance.now();
      for (let n = 0; n < writes / rounds; n++) await write(i);
      totals[i]! += performance.now() - t0;
    }
  }
  return totals.map((total) => total / writes);
}

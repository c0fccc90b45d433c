import { sql } from 'kysely';
import { writeAudit } from '../audit';
import type { Db } from '../db/index';
import { post } from './attempt';
import type { WebhookRuntime } from './types';
import { iso } from '../dates';

/** A failed build POST is tried again after 1 min, 5 min, 30 min and 2 h, then given up (and audited). */
const retryDelays = [60_000, 5 * 60_000, 30 * 60_000, 2 * 60 * 60_000];

/**
 * Sends the static-site rebuilds that are due: one POST per company whose first unsent change to a published
 * listing is older than the coalescing delay (migration 0004's triggers queue them), so a bulk import or a
 * burst of edits triggers one build. Returns how many POSTs succeeded.
 */
export async function sendDueRebuilds(db: Db, runtime: WebhookRuntime, delaySeconds: number): Promise<number> {
  const now = runtime.now();
  const due = await db
    .selectFrom('rebuild_jobs as j')
    .innerJoin('companies as c', 'c.id', 'j.company_id')
    .select(['j.company_id', 'c.environment', sql<string | null>`c.settings ->> 'rebuild_hook_url'`.as('url')])
    .where('j.first_requested_at', '<=', new Date(now.getTime() - delaySeconds * 1000))
    .where((eb) => eb.or([eb('j.next_attempt_at', 'is', null), eb('j.next_attempt_at', '<=', now)]))
    .where((eb) => eb.or([eb('j.locked_until', 'is', null), eb('j.locked_until', '<=', now)]))
    .limit(20)
    .execute();
  let sent = 0;
  for (const job of due) if (await sendOne(db, runtime, job, now)) sent++;
  return sent;
}

type DueJob = { company_id: string; environment: 'production' | 'development'; url: string | null };

async function sendOne(db: Db, runtime: WebhookRuntime, job: DueJob, now: Date): Promise<boolean> {
  const claimed = await db
    .updateTable('rebuild_jobs')
    .set({ locked_until: new Date(now.getTime() + runtime.timeoutMs + 5_000) })
    .where('company_id', '=', job.company_id)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .returning(['request_count', 'attempt_count', 'first_requested_at'])
    .executeTakeFirst();
  if (!claimed) return false;
  if (job.url === null) {
    await giveUp(db, job.company_id, 'URL refused: the hook was removed');
    return false;
  }
  const body = JSON.stringify({
    type: 'rebuild',
    company_id: job.company_id,
    requested_at: iso(claimed.first_requested_at),
  });
  const headers = { 'content-type': 'application/json', 'user-agent': runtime.userAgent };
  const result = await post(runtime, job.environment, job.url, { headers, body, timeoutMs: runtime.timeoutMs });
  if (result.refused) {
    await giveUp(db, job.company_id, result.error ?? 'URL refused');
    return false;
  }
  const code = result.statusCode;
  if (code !== null && code >= 200 && code < 300) {
    const done = await db
      .deleteFrom('rebuild_jobs')
      .where('company_id', '=', job.company_id)
      .where('request_count', '=', claimed.request_count)
      .executeTakeFirst();
    if (done.numDeletedRows === 0n) {
      // Changed while the POST was in flight: one more build, counted from that change.
      await db
        .updateTable('rebuild_jobs')
        .set((eb) => ({
          first_requested_at: eb.ref('last_requested_at'),
          attempt_count: 0,
          next_attempt_at: null,
          locked_until: null,
        }))
        .where('company_id', '=', job.company_id)
        .execute();
    }
    return true;
  }
  const error = result.error ?? `HTTP ${code}`;
  const attempts = claimed.attempt_count + 1;
  const wait = retryDelays[attempts - 1];
  if (wait === undefined) {
    await giveUp(db, job.company_id, error);
    return false;
  }
  await db
    .updateTable('rebuild_jobs')
    .set({ attempt_count: attempts, next_attempt_at: new Date(now.getTime() + wait), locked_until: null, last_error: error })
    .where('company_id', '=', job.company_id)
    .execute();
  return false;
}

async function giveUp(db: Db, companyId: string, error: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('rebuild_jobs').where('company_id', '=', companyId).execute();
    await writeAudit(trx, { companyId, actor: 'system', action: 'rebuild_hook.failed', details: { error } });
  });
}

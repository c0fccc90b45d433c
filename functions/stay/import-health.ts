import { sql } from 'kysely';
import type { Executor } from '../../lib/db/index';
import type { z } from '@hono/zod-openapi';
import type { WarningSchema } from '../../schema/common/warnings';

type Warning = z.infer<typeof WarningSchema>;

/**
 * The warnings of confirming a booking (issue 24): `import_stale` for each calendar import of the booking's home
 * that has not synced within twice its interval by `now` (the services' clock), or never synced, since its channel
 * may have sold the same nights. A warning, never a refusal (spec: "warnings on writes, not refusals").
 */
export async function importStaleWarnings(
  executor: Executor,
  companyId: string,
  reference: string,
  now: Date,
): Promise<Warning[]> {
  const stale = await executor
    .selectFrom('bookings as b')
    .innerJoin('calendar_imports as i', 'i.listing_id', 'b.listing_id')
    .select(['i.id', 'i.channel', 'i.last_synced_at'])
    .where('b.company_id', '=', companyId)
    .where('b.reference', '=', reference)
    .where('i.company_id', '=', companyId)
    .where((eb) =>
      eb.or([
        eb('i.last_synced_at', 'is', null),
        eb('i.last_synced_at', '<', sql<Date>`${now}::timestamptz - make_interval(mins => 2 * i.interval_minutes)`),
      ]),
    )
    .orderBy('i.created_at')
    .execute();
  return stale.map((i) => ({
    code: 'import_stale',
    message:
      i.last_synced_at === null
        ? `The calendar imported from ${i.channel} (${i.id}) has never synced: its channel may have sold these nights.`
        : `The calendar imported from ${i.channel} (${i.id}) last synced at ${new Date(i.last_synced_at).toISOString()}, more than twice its interval ago: its channel may have sold these nights.`,
  }));
}

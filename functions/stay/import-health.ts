import { type RawBuilder, sql } from 'kysely';
import type { z } from '@hono/zod-openapi';
import type { WarningSchema } from '../../schema/common/warnings';

export type Warning = z.infer<typeof WarningSchema>;

/** A calendar import out of date, as {@link staleImportsColumn} gives it (its time as JSON text). */
export type StaleImport = { id: string; channel: string; last_synced_at: string | null };

/**
 * The calendar imports of a home (`listing`, SQL: a column of the read) that have not synced within twice their
 * interval by `now` (the services' clock), or never synced, oldest first: a JSON array, for a column of the read that
 * the confirm makes anyway (no statement of its own).
 */
export function staleImportsColumn(companyId: string, listing: RawBuilder<string>, now: Date): RawBuilder<StaleImport[]> {
  return sql<StaleImport[]>`coalesce((
    select json_agg(json_build_object('id', i.id, 'channel', i.channel, 'last_synced_at', i.last_synced_at)
      order by i.created_at)
    from calendar_imports i
    where i.listing_id = ${listing} and i.company_id = ${companyId}::uuid
      and (i.last_synced_at is null
        or i.last_synced_at < ${now.toISOString()}::timestamptz - make_interval(mins => 2 * i.interval_minutes))
  ), '[]')`;
}

/**
 * The warnings of confirming a booking (issue 24): `import_stale` for each calendar import of the booking's home
 * that is out of date ({@link staleImportsColumn}), since its channel may have sold the same nights. A warning, never
 * a refusal (spec: "warnings on writes, not refusals").
 */
export function importStaleWarnings(stale: StaleImport[]): Warning[] {
  return stale.map((i) => ({
    code: 'import_stale',
    message:
      i.last_synced_at === null
        ? `The calendar imported from ${i.channel} (${i.id}) has never synced: its channel may have sold these nights.`
        : `The calendar imported from ${i.channel} (${i.id}) last synced at ${new Date(i.last_synced_at).toISOString()}, more than twice its interval ago: its channel may have sold these nights.`,
  }));
}

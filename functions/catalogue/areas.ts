import { sql } from 'kysely';
import type { Executor } from '../../lib/db/index';
import { localised } from '../../lib/localise';
import type { Company } from '../../schema/platform/db';
import { enabledTypes } from '../../lib/listing-filters';

/** Every city, area and project of the company with its published listings per enabled type, in the catalogue's order. */
export async function listAreas(db: Executor, company: Company) {
  const types = enabledTypes(company);
  // The counts are kept by the database (catalogue_counts, migration 0015): a listing counts for its city, its
  // area and its project. One small indexed read whatever the number of listings.
  const counted = db
    .selectFrom('catalogue_counts as k')
    .select(['k.value', 'k.listing_type', (eb) => eb.fn.sum<string>('k.n').as('n')])
    .where('k.company_id', '=', company.id)
    .where('k.dimension', 'in', ['city', 'area', 'project'])
    .where('k.listing_type', 'in', types)
    .groupBy(['k.value', 'k.listing_type']);
  const rows = await db
    .selectFrom('areas as a')
    .leftJoin(counted.as('c'), (join) => join.on('c.value', '=', sql<string>`a.id::text`))
    .leftJoin('areas as p', 'p.id', 'a.parent_id')
    .select(['a.id', 'a.kind', 'a.slug_en', 'a.slug_ar', 'a.name', 'a.position', 'p.slug_en as parent', 'c.listing_type', 'c.n'])
    .where('a.company_id', '=', company.id)
    .orderBy(sql`case a.kind when 'city' then 0 when 'area' then 1 else 2 end`)
    .orderBy('a.position')
    .orderBy('a.slug_en')
    .execute();
  const byId = new Map<string, ReturnType<typeof entry>>();
  function entry(row: (typeof rows)[number]) {
    return {
      kind: row.kind,
      slug: { en: row.slug_en, ar: row.slug_ar ?? row.slug_en },
      name: localised(row.name),
      parent: row.parent,
      counts: Object.fromEntries(types.map((t) => [t, 0])) as Record<string, number>,
    };
  }
  for (const row of rows) {
    const area = byId.get(row.id) ?? entry(row);
    byId.set(row.id, area);
    if (row.listing_type && row.n !== null) area.counts[row.listing_type] = Number(row.n);
  }
  return [...byId.values()];
}

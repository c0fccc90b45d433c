import { sql } from 'kysely';
import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import { localised } from '../../lib/localise';
import { AreaSchema, allOf } from '../../schema/catalogue/listings';
import { json, noQuery } from '../../schema/common/api';
import { catalogueAccess } from './cache';
import { enabledTypes, publishedListings } from './listings';

const route = defineRoute({
  method: 'get',
  path: '/areas',
  summary: 'Cities, areas and projects with counts of published listings per type',
  ...catalogueAccess(),
  request: { query: noQuery },
  responses: { 200: json(allOf(AreaSchema, 'AreaList'), 'Every area') },
});

export const areas = createRouter().openapi(route, async (c) => {
  const company = c.var.company;
  const db = c.var.services.db;
  const types = enabledTypes(company);
  // One pass over published listings counts each listing for its city, its area and its project.
  const counted = publishedListings(db, company).select([
    'l.listing_type',
    sql<string>`unnest(array[l.city_id, l.area_id, l.project_id])`.as('place_id'),
  ]);
  const rows = await db
    .selectFrom('areas as a')
    .leftJoin(
      db
        .selectFrom(counted.as('x'))
        .select(['x.place_id', 'x.listing_type', (eb) => eb.fn.countAll<string>().as('n')])
        .where('x.place_id', 'is not', null)
        .groupBy(['x.place_id', 'x.listing_type'])
        .as('c'),
      'c.place_id',
      'a.id',
    )
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
  return c.json({ results: [...byId.values()], next_cursor: null }, 200);
});

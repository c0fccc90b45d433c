import { sql } from 'kysely';
import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import { localised } from '../../lib/localise';
import { AreaSchema, allOf } from '../../schema/catalogue/listings';
import { json, noQuery } from '../../schema/common/api';
import { catalogueAccess } from './cache';
import { enabledTypes } from './listings';

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
  return c.json({ results: [...byId.values()], next_cursor: null }, 200);
});

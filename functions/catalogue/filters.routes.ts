import { sql } from 'kysely';
import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import { localised } from '../../lib/localise';
import type { ListingType } from '../../schema/catalogue/db';
import { FilterGroupSchema, allOf } from '../../schema/catalogue/listings';
import { json, noQuery } from '../../schema/common/api';
import { catalogueAccess } from './cache';
import { enabledTypes, publishedListings } from './listings';

const route = defineRoute({
  method: 'get',
  path: '/filters',
  summary: 'Filter options with counts, one group per enabled listing type',
  ...catalogueAccess(),
  request: { query: noQuery },
  responses: {
    200: json(allOf(FilterGroupSchema, 'FilterList'), 'Filter groups'),
  },
});

export const filters = createRouter().openapi(route, async (c) => {
  const company = c.var.company;
  const db = c.var.services.db;
  // One aggregate query: counts per type, and per type and each filter dimension (grouping sets).
  const [counts, propertyTypes, places] = await Promise.all([
    publishedListings(db, company)
      .select([
        'l.listing_type',
        'l.property_type',
        'l.bedrooms',
        'l.completion',
        'l.city_id',
        'l.area_id',
        'l.project_id',
        sql<number>`grouping(l.property_type, l.bedrooms, l.completion, l.city_id, l.area_id, l.project_id)`.as('g'),
        sql<string>`count(*)`.as('n'),
      ])
      .groupBy(
        sql`grouping sets ((l.listing_type), (l.listing_type, l.property_type), (l.listing_type, l.bedrooms),
          (l.listing_type, l.completion), (l.listing_type, l.city_id), (l.listing_type, l.area_id),
          (l.listing_type, l.project_id))`,
      )
      .execute(),
    db
      .selectFrom('property_types')
      .select(['value', 'name'])
      .where('company_id', '=', company.id)
      .orderBy('position')
      .orderBy('value')
      .execute(),
    db
      .selectFrom('areas')
      .select(['id', 'kind', 'slug_en', 'name'])
      .where('company_id', '=', company.id)
      .orderBy('position')
      .orderBy('slug_en')
      .execute(),
  ]);
  // grouping() sets one bit per column left out, first column highest: 0b011111 = only property_type kept.
  const bit = {
    property_type: 0b011111,
    bedrooms: 0b101111,
    completion: 0b110111,
    city: 0b111011,
    area: 0b111101,
    project: 0b111110,
  };
  const results = enabledTypes(company).map((type: ListingType) => {
    const ofType = counts.filter((r) => r.listing_type === type);
    const countWhere = (g: number, pick: (r: (typeof counts)[number]) => unknown, value: unknown) =>
      Number(ofType.find((r) => Number(r.g) === g && pick(r) === value)?.n ?? 0);
    const total = Number(ofType.find((r) => Number(r.g) === 0b111111)?.n ?? 0);
    const placeOptions = (kind: 'city' | 'area' | 'project') =>
      places
        .filter((p) => (kind === 'project' ? p.kind === 'project' : p.kind === kind))
        .map((p) => ({
          value: p.slug_en,
          label: localised(p.name),
          count: countWhere(bit[kind], (r) => (kind === 'city' ? r.city_id : kind === 'area' ? r.area_id : r.project_id), p.id),
        }))
        .filter((o) => o.count > 0);
    return {
      type,
      count: total,
      property_types: propertyTypes.map((p) => ({
        value: p.value,
        label: localised(p.name),
        count: countWhere(bit.property_type, (r) => r.property_type, p.value),
      })),
      areas: [...placeOptions('city'), ...placeOptions('area')],
      projects: placeOptions('project'),
      bedrooms: ofType
        .filter((r) => Number(r.g) === bit.bedrooms && r.bedrooms !== null)
        .map((r) => ({ value: r.bedrooms as number, count: Number(r.n) }))
        .sort((a, b) => a.value - b.value),
      completion: ofType
        .filter((r) => Number(r.g) === bit.completion && r.completion !== null)
        .map((r) => ({ value: r.completion as 'ready' | 'off_plan', count: Number(r.n) })),
    };
  });
  return c.json({ results, next_cursor: null }, 200);
});

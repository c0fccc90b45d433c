/**
 * The growth bench's data: grows the demo company to a number of published listings and contacts with
 * set-based SQL (generate_series), and builds the cursor of a deep page the way the API would give it out.
 */
import type pg from 'pg';
import type { KeysetSort } from '../lib/pagination';
import { encodeCursor } from '../lib/pagination';

/** Rows per INSERT statement: each statement is one transaction (autocommit), as an import batch would be. */
const BATCH = 10_000;

/** Published listings of the demo company now (any type). */
async function publishedCount(client: pg.Client, companyId: string): Promise<number> {
  const { rows } = await client.query<{ n: string }>(
    `select count(*) as n from listings where company_id = $1 and status = 'published'`,
    [companyId],
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * Adds published listings until the company has `target`: half for sale, a third for lease, the rest holiday
 * homes; areas, property types, bedrooms 0–6, prices by type, every 12th featured, most with coordinates and
 * two photos, published over the last two years. Deterministic in the row number.
 */
export async function growListings(client: pg.Client, companyId: string, target: number): Promise<number> {
  const start = await publishedCount(client, companyId);
  for (let from = start + 1; from <= target; from += BATCH) {
    const to = Math.min(target, from + BATCH - 1);
    await client.query(
      `with spots as (
         -- Where a listing can be: an area in its city, or a project in its area and city.
         select array_agg(s.city_id order by s.key) as city_ids, array_agg(s.area_id order by s.key) as area_ids,
                array_agg(s.project_id order by s.key) as project_ids
           from (select a.parent_id as city_id, a.id as area_id, null::uuid as project_id, a.slug_en as key
                   from areas a where a.company_id = $1 and a.kind = 'area'
                 union all
                 select a.parent_id, a.id, p.id, p.slug_en
                   from areas p join areas a on a.id = p.parent_id where p.company_id = $1 and p.kind = 'project') s),
       kinds as (select array_agg(value order by value) as kind_values from property_types where company_id = $1),
       numbered as (
         select g, case when g % 6 < 3 then 'sale' when g % 6 < 5 then 'lease' else 'holiday_home' end as t,
                (g::bigint * 7919) % 1000003 as h
           from generate_series($2::int, $3::int) g),
       inserted as (
         insert into listings (company_id, slug_en, listing_type, status, title, description, price, price_period,
           property_type, bedrooms, bathrooms, size_sqm, max_guests, city_id, area_id, project_id, completion, featured,
           sort_order, latitude, longitude, location_precision, published_at, updated_at)
         select $1, 'growth-' || g, t, 'published',
                -- Words a search can find, one of eight per listing (issue 36's word search: selective, not unique).
                jsonb_build_object('en', (array['Marina', 'Villa', 'Penthouse', 'Studio', 'Townhouse', 'Loft', 'Beach',
                  'Garden'])[1 + h % 8] || ' growth home ' || g, 'ar', (array['مارينا', 'فيلا', 'بنتهاوس', 'استوديو',
                  'تاون هاوس', 'لوفت', 'شاطئ', 'حديقة'])[1 + h % 8] || ' منزل ' || g), '{}'::jsonb,
                case t when 'sale' then 400000 + (h % 9000) * 1000 when 'lease' then 40000 + (h % 300) * 1000
                       else 300 + h % 2000 end,
                case t when 'sale' then 'total' when 'lease' then 'year' else 'night' end,
                k.kind_values[1 + h % cardinality(k.kind_values)], h % 7, 1 + h % 5, 40 + h % 900,
                case when t = 'holiday_home' then 2 + h % 10 end,
                s.city_ids[1 + h % cardinality(s.area_ids)], s.area_ids[1 + h % cardinality(s.area_ids)],
                s.project_ids[1 + h % cardinality(s.area_ids)],
                case when t = 'sale' then case when h % 4 = 0 then 'off_plan' else 'ready' end end,
                g % 12 = 0, h % 5000,
                case when h % 10 < 8 then 25.0 + (h % 1000) / 2000.0 end,
                case when h % 10 < 8 then 55.0 + (h % 997) / 2000.0 end,
                case when h % 10 < 8 then case when h % 3 = 0 then 'exact' else 'approximate' end end,
                now() - (h % 1051200) * interval '1 minute', now()
           from numbered, spots s, kinds k
         returning id, slug_en),
       photos as (
         insert into listing_photos (listing_id, position, storage_key, alt)
         select i.id, n, 'growth/' || i.slug_en || '/' || n || '.jpg', '{"en": "Photo"}'::jsonb
           from inserted i, generate_series(0, 1) n
         returning 1)
       select (select count(*) from inserted) as listings, (select count(*) from photos) as photos`,
      [companyId, from, to],
    );
  }
  return publishedCount(client, companyId);
}

/** Adds people until the company has `target` contacts (emails unique, updated over the last year); `tag` (one letter) keeps references unique across companies. */
export async function growContacts(client: pg.Client, companyId: string, target: number, tag: string): Promise<number> {
  const count = async () =>
    Number(
      (await client.query<{ n: string }>('select count(*) as n from contacts where company_id = $1', [companyId])).rows[0]?.n ??
        0,
    );
  for (let from = (await count()) + 1; from <= target; from += BATCH) {
    const to = Math.min(target, from + BATCH - 1);
    await client.query(
      `insert into contacts (company_id, reference, name, email, email_key, language, roles, created_at, updated_at)
       select $1, 'P-' || $4 || lpad(g::text, 9, '0'), 'Growth person ' || g, 'growth' || g || '@example.com',
              'growth' || g || '@example.com', case when g % 3 = 0 then 'ar' else 'en' end, '{buyer}',
              now() - ((g::bigint * 7919) % 525600) * interval '1 minute',
              now() - ((g::bigint * 7919) % 525600) * interval '1 minute'
         from generate_series($2::int, $3::int) g`,
      [companyId, from, to, tag],
    );
  }
  return count();
}

/** The text form the API's cursor carries for a column (timestamps as microseconds since the epoch). */
const keyText = (column: KeysetSort['columns'][number]) =>
  column.type === 'timestamptz' ? `(extract(epoch from ${column.ref}) * 1000000)::bigint::text` : `(${column.ref})::text`;

/**
 * The cursor that `next_cursor` would be after `offset` rows of `from` (an SQL `from … where …` with $1 the
 * company) in the sort's order: what following the pages one by one would reach, built in one query.
 */
export async function cursorAfter(
  client: pg.Client,
  sort: KeysetSort,
  from: string,
  companyId: string,
  offset: number,
): Promise<string> {
  const order = sort.columns.map((c) => `${c.ref} ${c.direction}`).join(', ');
  const keys = sort.columns.map((c, i) => `${keyText(c)} as k${i}`).join(', ');
  const { rows } = await client.query<Record<string, string>>(`select ${keys} ${from} order by ${order} offset $2 limit 1`, [
    companyId,
    offset - 1,
  ]);
  const row = rows[0];
  if (!row) throw new Error(`no row ${offset} for the sort ${sort.name}`);
  return encodeCursor(
    sort,
    sort.columns.map((_, i) => row[`k${i}`] as string),
  );
}

import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useApi, useDemoCompany } from '../support/world';

/**
 * Migration 0015's triggers, driven by plain SQL (any write path, not only the API's): catalogue_counts always
 * equals the published listings aggregated afresh, and the catalogue version moves once per statement.
 */
const api = useApi();
const company = useDemoCompany(api);

/** The kept counts and the counts aggregated now, as sorted `type dimension value n` lines (zeros left out). */
async function keptAndFresh() {
  const kept = await sql<{ line: string }>`
    select listing_type || ' ' || dimension || ' ' || value || ' ' || n as line
      from catalogue_counts where company_id = ${company.id} and n <> 0 order by 1`.execute(api.db);
  const fresh = await sql<{ line: string }>`
    select listing_type || ' ' || dimension || ' ' || value || ' ' || count(*) as line
      from listings l
      cross join lateral (values ('total', ''), ('property_type', l.property_type), ('bedrooms', l.bedrooms::text),
                                 ('completion', l.completion), ('city', l.city_id::text), ('area', l.area_id::text),
                                 ('project', l.project_id::text)) k(dimension, value)
     where l.company_id = ${company.id} and l.status = 'published' and k.value is not null
     group by listing_type, dimension, value order by 1`.execute(api.db);
  return { kept: kept.rows.map((r) => r.line), fresh: fresh.rows.map((r) => r.line) };
}

const version = async () =>
  Number(
    (await api.db.selectFrom('companies').select('catalogue_version').where('id', '=', company.id).executeTakeFirstOrThrow())
      .catalogue_version,
  );

describe('catalogue_counts', () => {
  it('follows inserts, updates of counted columns and status, deletes, and places deleted under the listings', async () => {
    const start = await keptAndFresh();
    expect(start.kept.length).toBeGreaterThan(0);
    expect(start.kept).toEqual(start.fresh);
    const steps = [
      sql`insert into listings (company_id, slug_en, listing_type, status, title, bedrooms, property_type, city_id)
          select ${company.id}, 'count-' || g, 'lease', 'published', '{"en": "C"}', g % 3, 'villa',
                 (select id from areas where company_id = ${company.id} and kind = 'city' order by slug_en limit 1)
            from generate_series(1, 7) g`,
      sql`update listings set bedrooms = bedrooms + 1, completion = 'ready' where company_id = ${company.id} and slug_en like 'count-%'`,
      sql`update listings set status = 'withdrawn' where company_id = ${company.id} and slug_en in ('count-1', 'count-2')`,
      sql`update listings set listing_type = 'sale' where company_id = ${company.id} and slug_en = 'count-3'`,
      sql`delete from listings where company_id = ${company.id} and slug_en = 'count-4'`,
      sql`delete from areas where company_id = ${company.id} and kind = 'project'`,
    ];
    for (const step of steps) {
      await step.execute(api.db);
      const now = await keptAndFresh();
      expect(now.kept).toEqual(now.fresh);
    }
  });
});

describe('the catalogue version', () => {
  it('moves once for a statement that changes many listings, and not for one that changes none', async () => {
    const before = await version();
    const changed = await sql`update listings set updated_at = now() where company_id = ${company.id}`.execute(api.db);
    expect(Number(changed.numAffectedRows)).toBeGreaterThan(10);
    expect(await version()).toBe(before + 1);
    await sql`update listings set updated_at = now() where company_id = ${company.id} and false`.execute(api.db);
    expect(await version()).toBe(before + 1);
    await sql`update listing_photos set alt = alt where listing_id in (select id from listings where company_id = ${company.id})`.execute(
      api.db,
    );
    expect(await version()).toBe(before + 2);
  });
});

/**
 * The portals (issue 25) in the BUILT Worker bundles in workerd, on the local PostgreSQL through the Neon driver: a
 * feed streamed in several batches after the handler returned (the request's Neon pool stays open until the body is
 * written, then closes), its 304, the portal check with a server key, the admin's rotation, and the permits'
 * scheduled work on the portals Worker's Cron Trigger.
 */
import { randomBytes } from 'node:crypto';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { sql } from 'kysely';
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCompany } from '../../functions/admin/companies';
import { importCatalogue } from '../../functions/catalogue/content';
import demoCatalogue from '../../functions/catalogue/demo-catalogue.json' with { type: 'json' };
import { rotateFeedToken } from '../../functions/portals/tokens';
import { randomToken, sha256 } from '../../lib/crypto';
import type { DatabaseHandle } from '../../lib/db/index';
import { createKey } from '../../lib/keys';
import { newSecretKey } from '../../lib/webhooks/secrets';
import { CatalogueImportInput } from '../../schema/catalogue/admin';
import { CreateCompanyInput } from '../../schema/platform/admin';
import { bundleOf, startWorkerd, type Workerd, workerAdminClient, workerClient } from './support';

const suffix = randomBytes(4).toString('hex');
const databaseName = `pa_workerd_portals_${suffix}`;
const host = `p${suffix}.workerd.test`;
const applicationName = 'pa_workerd_portals';
const adminToken = `adm_${randomToken(40)}`;
const secretKey = newSecretKey();
/** More than two of the feeds' batches (200 listings each). */
const listings = 450;

let workerd: Workerd | undefined;
let mf: Miniflare | undefined;
let handle: DatabaseHandle | undefined;
let companyId = '';
let token = '';
let serverKey = '';

// raw (through `call`): the feeds are XML at a secret token, read as bytes with their conditional headers
async function call(worker: string, path: string, init: { method?: string; headers?: Record<string, string> } = {}) {
  if (!mf) throw new Error('Miniflare is not running');
  return (await mf.getWorker(worker)).fetch(`http://${host}${path}`, init);
}

beforeAll(async () => {
  const bindings = { ADMIN_API: 'on', WEBHOOK_SECRET_KEY: secretKey, COMPANY_CACHE_TTL_SECONDS: '0' };
  workerd = await startWorkerd({
    template: inject('workerdTemplate'),
    databaseName,
    applicationName,
    workers: [
      { name: 'portals', bundle: bundleOf('portals'), bindings },
      { name: 'admin', bundle: bundleOf('default'), bindings },
    ],
    seed: async (db) => {
      const now = new Date();
      await db.db.transaction().execute(async (trx) => {
        const company = await createCompany(
          trx,
          CreateCompanyInput.parse({
            name: 'Workerd Portals',
            hosts: [host],
            environment: 'production',
            currency: 'AED',
            time_zone: 'Asia/Dubai',
            settings: { market: 'dubai' },
          }),
        );
        companyId = company.id;
        const doc = CatalogueImportInput.parse({ areas: demoCatalogue.areas, team: demoCatalogue.team });
        await importCatalogue(trx, company, doc, { render: null, now });
        serverKey = (await createKey(trx, company.id, { kind: 'server', name: 'portals', scopes: ['read:listings'] }, 'admin'))
          .secret;
      });
      // Listings every portal takes; the last one's permit ended yesterday (in Dubai).
      await sql`
        with places as (
          select (select id from areas where company_id = ${companyId} and slug_en = 'dubai') as city,
                 (select id from areas where company_id = ${companyId} and slug_en = 'dubai-marina') as area,
                 (select id from team_profiles where company_id = ${companyId} and name = 'Sara Haddad') as agent
        ), made as (
          insert into listings (company_id, slug_en, listing_type, status, title, description, price, price_period,
            property_type, bedrooms, bathrooms, size_sqm, city_id, area_id, published_at, updated_at, permit_number,
            permit_authority, permit_expires_on, agent_id)
          select ${companyId}, 'w-' || i, 'sale', 'published',
                 jsonb_build_object('en', 'Apartment ' || i || ' & <view>', 'ar', 'شقة ' || i || ' 😀'),
                 jsonb_build_object('en', repeat('A bright apartment with a sea view & a balcony. ', 8)),
                 1000000 + i, 'total', 'apartment', 2, 2, 110.5, places.city, places.area, now(), now(),
                 (7000000000 + i)::text, 'dld',
                 case when i = ${listings} then ((now() at time zone 'Asia/Dubai')::date - 1) else '2099-12-31'::date end,
                 places.agent
            from generate_series(1, ${listings}::int) as i, places
          returning id, slug_en
        )
        insert into listing_photos (listing_id, position, storage_key, alt)
        select made.id, p, made.slug_en || '/photo-' || p, '{"en": "A room"}'::jsonb from made, generate_series(0, 2) as p`.execute(
        db.db,
      );
      token = await rotateFeedToken(db.db, companyId, secretKey);
      await db.db
        .insertInto('admin_tokens')
        .values({ token_hash: await sha256(adminToken) })
        .execute();
    },
  });
  ({ mf, handle } = workerd);
});

afterAll(async () => {
  await workerd?.close();
});

const parser = new XMLParser({
  ignoreAttributes: false,
  parseTagValue: false,
  isArray: (name) => name === 'property' || name === 'Property',
});

describe('the portals Worker in workerd', () => {
  it('streams each feed whole, past its first batches, then answers its ETag 304', async () => {
    for (const [portal, item] of [
      ['propertyfinder', 'property'],
      ['bayut', 'Property'],
    ] as const) {
      const response = await call('portals', `/api/v1/feeds/${token}/${portal}.xml`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/xml; charset=utf-8');
      const text = await response.text();
      expect(XMLValidator.validate(text)).toBe(true);
      const doc = parser.parse(text);
      const root = doc.list ?? doc.Properties;
      // The listing whose permit ended yesterday is left out.
      expect(root[item]).toHaveLength(listings - 1);
      if (portal === 'propertyfinder') expect(root['@_listing_count']).toBe(String(listings - 1));
      expect(text).toContain('Apartment 7 &amp; &lt;view&gt;');
      expect(text).toContain('شقة 7 😀');
      const again = await call('portals', `/api/v1/feeds/${token}/${portal}.xml`, {
        headers: { 'If-None-Match': response.headers.get('etag') as string },
      });
      expect(again.status).toBe(304);
    }
  });

  it('closes the Neon pool once a streamed feed is written (no Worker connection stays open)', async () => {
    const open = async () => {
      const { rows } = await sql<{ n: string }>`
        select count(*) as n from pg_stat_activity
        where datname = ${databaseName} and application_name = ${applicationName}`.execute(handle!.db);
      return Number(rows[0]?.n);
    };
    let count = await open();
    for (let i = 0; i < 50 && count > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      count = await open();
    }
    expect(count).toBe(0);
  });

  it('answers the portal check to a server key with read:listings', async () => {
    const checked = await workerClient(() => mf, 'portals', { host, serverKey }).GET('/api/v1/portal-check', {
      params: { query: { blocked: 'true' } as never },
    });
    expect(checked.response.status).toBe(200);
    const page = checked.data as unknown as {
      results: Array<{ slug: string; portals: { bayut: { problems: Array<{ code: string }> } } }>;
    };
    expect(page.results.map((r) => r.slug)).toEqual([`w-${listings}`]);
    expect(page.results[0]?.portals.bayut.problems.map((p) => p.code)).toEqual(['permit_expired']);
  });

  it('rotates the token through the admin API: the old URL is 404 at once', async () => {
    const admin = workerAdminClient(() => mf, 'admin', host, adminToken);
    const company = { params: { path: { company_id: companyId } } };
    const listed = await admin.GET('/admin/v1/companies/{company_id}/portal-feeds', company);
    expect(listed.response.status).toBe(200);
    const urls = (listed.data?.results ?? []).map((f) => f.url);
    expect(urls[0]).toBe(`https://${host}/api/v1/feeds/${token}/propertyfinder.xml`);
    const rotated = await admin.POST('/admin/v1/companies/{company_id}/portal-feeds/rotate', company);
    expect(rotated.response.status).toBe(200);
    const fresh = new URL(rotated.data?.results[1]?.url ?? '').pathname;
    expect((await call('portals', `/api/v1/feeds/${token}/bayut.xml`)).status).toBe(404);
    const response = await call('portals', fresh);
    expect(response.status).toBe(200);
    await response.arrayBuffer();
  });

  it('records listing.permit_expired on its Cron Trigger', async () => {
    expect((await (await mf!.getWorker('portals')).scheduled({ cron: '* * * * *' })).outcome).toBe('ok');
    const events = await handle!.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('company_id', '=', companyId)
      .where('type', '=', 'listing.permit_expired')
      .execute();
    expect(events).toHaveLength(1);
    const expired = await handle!.db
      .selectFrom('listings')
      .select(['id', 'permit_number'])
      .where('company_id', '=', companyId)
      .where('slug_en', '=', `w-${listings}`)
      .executeTakeFirstOrThrow();
    expect(events[0]?.data).toEqual({ listing_id: expired.id, permit_reference: expired.permit_number });
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { presenter } from '../../functions/catalogue/listings.present';
import { renderContext, renderListing } from '../../functions/catalogue/renders';
import { selectListingRecord } from '../../functions/catalogue/listings';
import { createTestApi } from '../support/harness';
import { listingAnswers } from '../forms/support';
import { expectAnswersAsPresented, listingIdOf, storedRender } from './presented';
import { bySlug, catalogue, patchSettings, publish, withdraw } from './support';
import { testClient } from '../support/client';
import { adminOf, createKey, importCatalogue, useApi, useDemoCompany } from '../support/world';

/**
 * Render on write (functions/catalogue/renders.ts): the stored forms are what the presenter makes, every public
 * answer is the JSON text the routes sent before, and every change to what a listing shows, by any path, is in
 * the next answer. Pages are built each time (the rendered-answer cache is off).
 */

let media: string;

const api = useApi({ env: { CATALOGUE_RESPONSE_CACHE_MB: '0', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000000' } });
const company = useDemoCompany(api, { team_module: true, site_url: 'https://www.demo-properties.ae' });
beforeAll(async () => {
  media = api.platform.config.MEDIA_BASE_URL;
});

const answers = () => expectAnswersAsPresented(api, company.host, company.id, media);
const listingId = (slug: string) => listingIdOf(api, company.id, slug);
/** GET /listings/{slug} through the typed client: the body (a problem's too). */
const detailOf = (slug: string) =>
  catalogue(api, company.host).client.GET('/api/v1/listings/{slug}', { params: { path: { slug } } });
const detail = async (slug: string): Promise<any> => {
  const { data, error } = await detailOf(slug);
  return data ?? error;
};
/** The company's listings (drafts aside) whose forms are stored (`fresh`) or not. */
const renderCount = async (fresh: boolean) =>
  Number(
    (
      await api.db
        .selectFrom('listing_renders as r')
        .innerJoin('listings as l', 'l.id', 'r.listing_id')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('l.company_id', '=', company.id)
        .where('l.status', '<>', 'draft')
        .where('r.rendered_for', fresh ? 'is not' : 'is', null)
        .executeTakeFirstOrThrow()
    ).n,
  );
/** A change made straight in SQL to the company row: seen once the database's notification has arrived. */
async function companyChange(change: () => Promise<unknown>) {
  const seen = api.platform.companyCache.changed(company.id);
  await change();
  await seen;
}

describe('stored renders', () => {
  it('are rendered by the import for every listing but drafts, and equal the presenter’s forms', async () => {
    const render = await renderContext(
      await api.db.selectFrom('companies').selectAll().where('id', '=', company.id).executeTakeFirstOrThrow(),
      media,
    );
    const rows = await selectListingRecord(api.db.selectFrom('listings as l').where('l.company_id', '=', company.id), {
      description: true,
      photos: 'all',
    })
      .innerJoin('listing_renders as r', 'r.listing_id', 'l.id')
      .select(['l.status', 'r.rendered_for', 'r.card', 'r.detail', 'r.map_point', 'r.map_cover', 'r.sitemap'])
      .execute();
    expect(rows.length).toBe(32);
    const present = presenter(render.company, media);
    for (const row of rows) {
      if (row.status === 'draft') {
        expect(row.rendered_for, row.slug_en).toBeNull();
        continue;
      }
      expect(row.rendered_for, row.slug_en).toBe(render.tag);
      const parsed = (text: string | null) => (text === null ? null : JSON.parse(text));
      const record = row as never;
      const mapped = row.latitude !== null;
      const published = row.status === 'published';
      expect(parsed(row.detail), row.slug_en).toEqual(published ? present.detail(record) : present.withdrawn(record));
      expect(parsed(row.card), row.slug_en).toEqual(published ? present.summary(record) : null);
      expect(parsed(row.map_point), row.slug_en).toEqual(published && mapped ? present.mapPoint(record, false) : null);
      expect(parsed(row.map_cover), row.slug_en).toEqual(published && mapped ? present.mapPoint(record, true) : null);
      expect(parsed(row.sitemap), row.slug_en).toEqual(published ? present.sitemapEntry(record) : null);
      expect(renderListing(present, row as never)).toEqual({
        card: row.card,
        detail: row.detail,
        map_point: row.map_point,
        map_cover: row.map_cover,
        sitemap: row.sitemap,
      });
    }
  });

  it('give every public answer as the presenter made it: lists, map with and without cover, details, sitemap', async () => {
    await answers();
  });
});

describe('every change is in the next answer', () => {
  it('a listing’s fields changed in SQL', async () => {
    await api.db
      .updateTable('listings')
      .set({ title: JSON.stringify({ en: 'Retitled in SQL', ar: 'عنوان جديد' }), price: '999.00', bedrooms: 7 })
      .where('company_id', '=', company.id)
      .where('slug_en', '=', 'marina-gate-2br-sea-view')
      .execute();
    const expected = await answers();
    expect(expected.get('/listings/marina-gate-2br-sea-view')).toContain('Retitled in SQL');
    expect((await detail('marina-gate-2br-sea-view')).price.amount).toBe('999.00');
  });

  it('photos added, reordered, made not ready and removed in SQL', async () => {
    const id = await listingId('marina-gate-2br-sea-view');
    await api.db
      .insertInto('listing_photos')
      .values({ listing_id: id, position: 50, storage_key: 'added/photo', alt: JSON.stringify({ en: 'Added' }) })
      .execute();
    expect((await detail('marina-gate-2br-sea-view')).photos.at(-1).alt.en).toBe('Added');
    await answers();
    // Reordered: the new photo first.
    await api.db
      .updateTable('listing_photos')
      .set({ position: -1 })
      .where('listing_id', '=', id)
      .where('position', '=', 50)
      .execute();
    expect((await detail('marina-gate-2br-sea-view')).photos[0].alt.en).toBe('Added');
    const withCover = await catalogue(api, company.host).map({ cover: '1', page_size: 100 });
    expect(withCover.results.find((p: { id: string }) => p.id === id).cover.alt.en).toBe('Added');
    await api.db
      .updateTable('listing_photos')
      .set({ ready: false })
      .where('listing_id', '=', id)
      .where('position', '=', -1)
      .execute();
    expect((await detail('marina-gate-2br-sea-view')).photos.map((p: { alt: { en: string } }) => p.alt.en)).not.toContain(
      'Added',
    );
    await api.db.deleteFrom('listing_photos').where('listing_id', '=', id).execute();
    expect((await detail('marina-gate-2br-sea-view')).photos).toEqual([]);
    await answers();
  });

  it('a place renamed, and a place removed', async () => {
    await api.db
      .updateTable('areas')
      .set({ name: JSON.stringify({ en: 'Marina Renamed', ar: 'مارينا' }) })
      .where('company_id', '=', company.id)
      .where('slug_en', '=', 'dubai-marina')
      .execute();
    const seaView = await detail('marina-gate-2br-sea-view');
    expect(seaView.area.name.en).toBe('Marina Renamed');
    expect(seaView.structured_data.en.about.address.addressRegion).toBe('Marina Renamed');
    await answers();
    await api.db.deleteFrom('areas').where('company_id', '=', company.id).where('slug_en', '=', 'marina-gate').execute();
    expect((await detail('marina-gate-2br-sea-view')).project).toBeNull();
    await answers();
  });

  it('company settings changed through the admin API and in SQL, and the currency', async () => {
    await patchSettings(api, company.id, {
      hide_prices: true,
      path_pattern: { en: '/en/{type}/{slug}', ar: '/ar/{type}/{slug}' },
      site_url: 'https://www.example.com/',
      media_base_url: 'https://cdn.example.com/',
    });
    const hidden = await answers();
    expect(hidden.get('/listings?page_size=100')).not.toContain('"amount"');
    expect(hidden.get('/listings?page_size=100')).toContain('https://cdn.example.com/');
    await companyChange(() =>
      api.db
        .updateTable('companies')
        .set({ settings: JSON.stringify({ team_module: true }) })
        .where('id', '=', company.id)
        .execute(),
    );
    const shown = await answers();
    expect(shown.get('/listings?page_size=100')).toContain('"currency":"AED"');
    await companyChange(() => api.db.updateTable('companies').set({ currency: 'USD' }).where('id', '=', company.id).execute());
    expect((await answers()).get('/listings?page_size=100')).toContain('"currency":"USD"');
    // Back to settings rendered before: the forms stored since are for the current ones, and are used.
    await patchSettings(api, company.id, { hide_prices: true });
    expect((await answers()).get('/listings?page_size=100')).not.toContain('"amount"');
  });

  it('the deployment’s MEDIA_BASE_URL: each deployment answers with its own', async () => {
    const other = await createTestApi({
      handle: api.handle,
      env: {
        CATALOGUE_RESPONSE_CACHE_MB: '0',
        RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000000',
        MEDIA_BASE_URL: 'https://other-media.example.org',
      },
    });
    const first = await expectAnswersAsPresented(other, company.host, company.id, 'https://other-media.example.org');
    expect([...first.values()].join()).toContain('https://other-media.example.org/');
    const again = await answers();
    expect([...again.values()].join()).not.toContain('https://other-media.example.org/');
    // (Not closed: it shares this file's database.)
  });

  it('a listing written by another group (a draft from a listing request) and published in SQL', async () => {
    const writer = await createKey(api, company.id, { scopes: ['write:leads'] });
    const body = { consent: true, consent_version: '2026-01', email: 'seller@example.com', service: 'sell-my-property' };
    const lead = await testClient(api, { host: company.host, serverKey: writer.secret }).POST('/api/v1/leads', {
      body: { ...body, details: listingAnswers } as never,
    });
    expect(lead.response.status, JSON.stringify(lead.error)).toBe(201);
    const drafted = await adminOf(api).POST('/admin/v1/companies/{company_id}/leads/{reference}/draft-listing', {
      params: { path: { company_id: company.id, reference: lead.data?.reference ?? '' } },
    });
    expect(drafted.response.status, JSON.stringify(drafted.error)).toBe(201);
    const slug = drafted.data?.slug as string;
    expect((await detailOf(slug)).response.status).toBe(404);
    await api.db
      .updateTable('listings')
      .set({ status: 'published', published_at: new Date('2026-07-01T00:00:00Z') })
      .where('id', '=', drafted.data?.id ?? '')
      .execute();
    const expected = await answers();
    expect(expected.get('/listings?page_size=100')).toContain(slug);
  });

  it('withdrawn and published again through the admin API (rendered in its transaction), withdrawn and deleted in SQL', async () => {
    const slug = bySlug('marina-gate-2br-sea-view').slug.en;
    const id = await listingId(slug);
    const stored = () => storedRender(api, id);
    expect((await withdraw(api, company.id, slug)).response.status).toBe(200);
    expect((await stored()).rendered_for).not.toBeNull();
    expect(JSON.parse((await stored()).detail as string)).toEqual({ slug: expect.any(Object), status: 'withdrawn' });
    await answers();
    expect((await publish(api, company.id, slug)).response.status).toBe(200);
    expect((await stored()).rendered_for).not.toBeNull();
    await answers();
    await api.db.updateTable('listings').set({ status: 'withdrawn' }).where('id', '=', id).execute();
    expect((await detail(slug)).status).toBe('withdrawn');
    await api.db.deleteFrom('listings').where('id', '=', id).execute();
    expect((await detailOf(slug)).response.status).toBe(404);
    await answers();
  });

  it('an import renders what it wrote and what it left stale, in its transaction', async () => {
    // A place renamed in SQL leaves its listings stale; the next import (of nothing else) renders them.
    await api.db
      .updateTable('areas')
      .set({ name: JSON.stringify({ en: 'Downtown Renamed' }) })
      .where('company_id', '=', company.id)
      .where('slug_en', '=', 'downtown-dubai')
      .execute();
    expect(await renderCount(false)).toBeGreaterThan(0);
    await importCatalogue(api, company.id, { services: [] });
    expect(await renderCount(false)).toBe(0);
    expect(await renderCount(true)).toBeGreaterThan(25);
    await answers();
  });
});

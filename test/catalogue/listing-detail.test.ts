import { describe, expect, it } from 'vitest';
import { bySlug, catalogue, importDoc, listingDoc, smallCompany } from './support';
import { createCompany, demoCompany, useApi, useDemoCompany } from '../support/world';

const api = useApi();
const company = useDemoCompany(api);

/** GET /listings/{slug} through the typed client (the slug percent-encoded by it): the status, headers and body (a problem's too). */
const detail = async (slug: string, host = company.host) => {
  const { data, error, response } = await catalogue(api, host).client.GET('/api/v1/listings/{slug}', {
    params: { path: { slug } },
  });
  return { status: response.status, headers: response.headers, json: (data ?? error) as any };
};

/** Every object found under a localised key, with the path it was found at. */
function localisedObjects(value: unknown, path = '$'): Array<[string, unknown]> {
  if (Array.isArray(value)) return value.flatMap((v, i) => localisedObjects(v, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => [
    ...(['title', 'description', 'name', 'alt', 'slug', 'path', 'label'].includes(k) && typeof v === 'object' && v !== null
      ? [[`${path}.${k}`, v] as [string, unknown]]
      : []),
    ...(k === 'structured_data' ? [] : localisedObjects(v, `${path}.${k}`)),
  ]);
}

describe('GET /listings/{slug}', () => {
  const sea = bySlug('marina-gate-2br-sea-view');

  it('finds a listing by its English slug with its full content', async () => {
    const res = await detail(sea.slug.en);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      slug: { en: sea.slug.en, ar: sea.slug.ar },
      status: 'published',
      listing_type: 'sale',
      title: sea.title,
      description: sea.description,
      price: { amount: '2450000.00', currency: 'AED', period: 'total' },
      property_type: 'apartment',
      bedrooms: 2,
      completion: 'ready',
      featured: true,
      city: { slug: { en: 'dubai', ar: 'دبي' }, name: { en: 'Dubai', ar: 'دبي' } },
      area: { slug: { en: 'dubai-marina', ar: 'دبي-مارينا' } },
      project: { slug: { en: 'marina-gate', ar: 'مارينا-جيت' } },
      coordinates: { latitude: 25.0869, longitude: 55.1478, precision: 'exact' },
      published_at: '2026-06-01T06:00:00.000Z',
    });
    expect(res.json.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('finds the same listing by its Arabic slug, percent-encoded in the URL', async () => {
    const en = await detail(sea.slug.en);
    const ar = await detail(sea.slug.ar);
    expect(ar.status).toBe(200);
    expect(ar.json).toEqual(en.json);
  });

  it('answers an unknown slug with a 404 problem', async () => {
    const res = await detail('no-such-listing');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.json).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('answers a draft with 404, by either slug', async () => {
    const draft = bySlug('al-reem-2br-holiday-home');
    expect(draft.status).toBe('draft');
    for (const slug of [draft.slug.en, draft.slug.ar]) {
      const res = await detail(slug);
      expect(res.status).toBe(404);
      expect(res.json.code).toBe('not_found');
      expect(JSON.stringify(res.json)).not.toContain(draft.title.en);
    }
  });

  it('answers a withdrawn listing with its slug and status only, by either slug', async () => {
    const gone = bySlug('al-reem-2br-mangrove-view');
    expect(gone.status).toBe('withdrawn');
    for (const slug of [gone.slug.en, gone.slug.ar]) {
      const res = await detail(slug);
      expect(res.status).toBe(200);
      expect(Object.keys(res.json).sort()).toEqual(['slug', 'status']);
      expect(res.json).toEqual({ slug: { en: gone.slug.en, ar: gone.slug.ar }, status: 'withdrawn' });
    }
  });

  it('answers 404 for a listing of a type the company does not show, even withdrawn', async () => {
    const other = await demoCompany(api, { enabled_types: ['sale'] });
    expect((await detail('marina-gate-1br-furnished', other.host)).status).toBe(404);
    expect((await detail('jvc-2br-townhouse', other.host)).status).toBe(404);
    expect((await detail(sea.slug.en, other.host)).status).toBe(200);
  });

  // BUG: the import accepts the English slug "map", but GET /listings/map is the map route, so that
  // listing can never be found by its English slug. The import should refuse the reserved slug.
  it('does not let a listing take the slug "map", which the map route owns', async () => {
    const own = await createCompany(api);
    const res = await importDoc(api, own.id, { listings: [listingDoc('map', { area: null, city: null })] });
    if (res.response.status !== 200) {
      expect(res.response.status).toBe(400);
      return;
    }
    const found = await detail('map', own.host);
    expect(found.json.slug, 'the listing "map" is unreachable by its English slug').toEqual({ en: 'map', ar: 'عقار-map' });
  });

  it('gives one schema.org RealEstateListing document per language', async () => {
    const res = await detail(sea.slug.en);
    for (const lang of ['en', 'ar'] as const) {
      const doc = res.json.structured_data[lang];
      expect(doc).toMatchObject({
        '@context': 'https://schema.org',
        '@type': 'RealEstateListing',
        name: sea.title[lang],
        description: sea.description[lang],
        inLanguage: lang,
        datePosted: '2026-06-01',
        offers: { '@type': 'Offer', price: '2450000.00', priceCurrency: 'AED' },
      });
      expect(doc.image).toEqual(res.json.photos.map((p: any) => p.sizes.large.url));
    }
    expect(Object.keys(res.json.structured_data).sort()).toEqual(['ar', 'en']);
  });
});

describe('localised text', () => {
  it('gives every title, description, name, alt, slug and path in both en and ar, in the list and in detail', async () => {
    const list = await catalogue(api, company.host).listings({ page_size: 100 });
    const one = (await detail('marina-gate-2br-sea-view')).json;
    const found = [...localisedObjects(list.results), ...localisedObjects(one)];
    expect(found.length).toBeGreaterThan(29 * 6);
    for (const [where, value] of found) {
      expect(Object.keys(value as object).sort(), where).toEqual(['ar', 'en']);
      const { en, ar } = value as { en: unknown; ar: unknown };
      expect(typeof en === 'string' && typeof ar === 'string', where).toBe(true);
    }
  });

  it('gives the English text under ar for a listing with English only', async () => {
    const office = bySlug('business-bay-office-canal-view');
    expect(office.title).toEqual({ en: office.title.en });
    const res = await detail(office.slug.en);
    expect(res.json.title).toEqual({ en: office.title.en, ar: office.title.en });
    expect(res.json.description).toEqual({ en: office.description.en, ar: office.description.en });
    expect(res.json.structured_data.ar).toMatchObject({ name: office.title.en, inLanguage: 'ar' });
    const list = await catalogue(api, company.host).listings({ property_type: 'office', type: 'sale' });
    expect(list.results[0].title).toEqual({ en: office.title.en, ar: office.title.en });
  });

  it('falls back to English for a photo alt text and a slug given in English only', async () => {
    const small = await smallCompany(api, [
      listingDoc('english-only', {
        slug: { en: 'english-only' },
        title: { en: 'Only English' },
        description: undefined,
        photos: [{ key: 'english-only/a', alt: { en: 'A room' } }],
      }),
    ]);
    const res = await detail('english-only', small.host);
    expect(res.json.slug).toEqual({ en: 'english-only', ar: 'english-only' });
    expect(res.json.title).toEqual({ en: 'Only English', ar: 'Only English' });
    expect(res.json.description).toEqual({ en: '', ar: '' });
    expect(res.json.photos[0].alt).toEqual({ en: 'A room', ar: 'A room' });
    expect(res.json.path).toEqual({ en: '/en/listings/english-only', ar: '/ar/listings/english-only' });
  });
});

describe('photos', () => {
  const keysOf = (photos: any[]) => photos.map((p) => p.sizes.large.url.split('/').slice(-3, -1).join('/'));

  it('gives the ready photos in position order, each with sizes and alt text in both languages', async () => {
    const sea = bySlug('marina-gate-2br-sea-view');
    const { photos } = (await detail(sea.slug.en)).json;
    expect(photos.map((p: any) => p.position)).toEqual([0, 1, 2, 3]);
    expect(keysOf(photos)).toEqual(sea.photos.map((p) => p.key));
    expect(photos.map((p: any) => p.alt)).toEqual(sea.photos.map((p) => p.alt));
    for (const photo of photos) {
      expect(Object.keys(photo.sizes).sort()).toEqual(['large', 'medium', 'small']);
      expect(Object.values(photo.sizes).map((s: any) => s.width)).toEqual([480, 960, 1600]);
      for (const size of Object.values(photo.sizes) as any[]) {
        expect(new URL(size.url).protocol).toBe('https:');
        expect(size.url).toContain(`/w${size.width}.`);
      }
    }
    expect(new Set(photos.flatMap((p: any) => Object.values(p.sizes).map((s: any) => s.url))).size).toBe(12);
  });

  it('leaves out a photo that is not ready (here the first one)', async () => {
    const fountain = bySlug('burj-vista-2br-fountain-view');
    expect(fountain.photos[0]?.ready).toBe(false);
    const { photos } = (await detail(fountain.slug.en)).json;
    expect(photos.map((p: any) => p.position)).toEqual([1, 2, 3]);
    expect(keysOf(photos)).toEqual(fountain.photos.slice(1).map((p) => p.key));
  });

  it('orders by position, not by the order the photos were stored in, and drops one made not ready', async () => {
    const own = await demoCompany(api);
    const listing = await api.db
      .selectFrom('listings')
      .select('id')
      .where('company_id', '=', own.id)
      .where('slug_en', '=', 'oceana-3br-palm')
      .executeTakeFirstOrThrow();
    await api.db
      .updateTable('listing_photos')
      .set((eb) => ({ position: eb(eb.val(10), '-', eb.ref('position')) }))
      .where('listing_id', '=', listing.id)
      .execute();
    await api.db
      .updateTable('listing_photos')
      .set({ ready: false })
      .where('listing_id', '=', listing.id)
      .where('position', '=', 8)
      .execute();
    const { photos } = (await detail('oceana-3br-palm', own.host)).json;
    const stored = bySlug('oceana-3br-palm').photos.map((p) => p.key);
    expect(photos.map((p: any) => p.position)).toEqual([6, 7, 9, 10]);
    expect(keysOf(photos)).toEqual([stored[4], stored[3], stored[1], stored[0]]);
  });

  it('keeps photo addresses stable from one read to the next, and the same in the list as in detail', async () => {
    const first = (await detail('downtown-4br-penthouse')).json.photos;
    const second = (await detail('downtown-4br-penthouse')).json.photos;
    expect(second).toEqual(first);
    expect(first).toHaveLength(5);
    const list = await catalogue(api, company.host).listings({ property_type: 'penthouse' });
    expect(list.results[0].photos).toEqual(first);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { createCompany, createKey, importCatalogue, useApi } from '../support/world';

/**
 * The catalogue written by integrations (issue 38; docs/api-reference.md, "The catalogue written by integrations"): a
 * listing system with a server key holding `write:listings` creates, replaces, publishes and withdraws its listings
 * under its own ids, with the import's checks at the field and its events; the public pages follow at once.
 *
 * The operations are new in this branch and not yet in the checked-in typed clients (the merger regenerates them):
 * their calls are raw requests.
 */
const api = useApi();
const media = 'https://media.property-api.dev';

type Setup = { company: { id: string; host: string }; writer: string; reader: string; prefix: string };
const ctx = {} as Setup;

/** A company with two places and an agent, and a writing and a reading server key. */
async function setup(): Promise<Setup> {
  const company = await createCompany(api);
  await importCatalogue(api, company.id, {
    areas: [
      { kind: 'city', slug: { en: 'dubai' }, name: { en: 'Dubai', ar: 'دبي' } },
      { kind: 'area', slug: { en: 'marina' }, name: { en: 'Marina', ar: 'المارينا' }, parent: 'dubai' },
    ],
    team: [{ name: 'Sara Khan' }],
  });
  const writer = await createKey(api, company.id, { scopes: ['write:listings'] });
  const reader = await createKey(api, company.id, { scopes: ['read:listings'] });
  return { company, writer: writer.secret, reader: reader.secret, prefix: writer.prefix };
}

beforeAll(async () => {
  Object.assign(ctx, await setup());
});

let counter = 0;
/** A new external id and English slug for each listing a test writes. */
const fresh = () => {
  counter++;
  return { external: `acme:L-${counter}`, slug: `marina-flat-${counter}` };
};

function body(slug: string, over: Record<string, unknown> = {}, companyId = ctx.company.id) {
  return {
    slug: { en: slug, ar: `شقة-${slug}` },
    listing_type: 'lease',
    title: { en: `Marina flat ${slug}`, ar: `شقة المارينا ${slug}` },
    description: { en: 'Sea view.', ar: 'إطلالة على البحر.' },
    price: '120000.00',
    price_period: 'year',
    bedrooms: 2,
    city: 'dubai',
    area: 'marina',
    agent: 'Sara Khan',
    photos: [
      { url: `${media}/${companyId}/${slug}/living.jpg`, alt: { en: 'The living room', ar: 'غرفة المعيشة' } },
      { url: `${media}/${companyId}/${slug}/view.jpg`, alt: { en: 'The view', ar: 'الإطلالة' } },
    ],
    ...over,
  };
}

// raw: the operation is not in the checked-in typed client yet (the merger regenerates it)
const put = (external: string, payload: unknown, key = ctx.writer, host = ctx.company.host) =>
  api.request(`/api/v1/external-listings/${encodeURIComponent(external)}`, { host, key, method: 'PUT', body: payload });
// raw: as above
const act = (external: string, action: 'publish' | 'withdraw', key = ctx.writer, host = ctx.company.host) =>
  api.request(`/api/v1/external-listings/${encodeURIComponent(external)}/${action}`, { host, key, method: 'POST' });
// raw: the public read, with its ETag header
const read = (slug: string, headers: Record<string, string> = {}) =>
  api.request(`/api/v1/listings/${encodeURIComponent(slug)}`, { host: ctx.company.host, headers });

const eventsOf = (listingId: string) =>
  api.db
    .selectFrom('events')
    .select(['type', 'data', 'caused_by'])
    .where('company_id', '=', ctx.company.id)
    .where(({ eb, ref }) => eb(eb.fn('jsonb_extract_path_text', [ref('data'), eb.val('listing_id')]), '=', listingId))
    .orderBy('created_at')
    .orderBy('id')
    .execute();

const listingsNamed = (slug: string) =>
  api.db
    .selectFrom('listings')
    .select(['id', 'status'])
    .where('company_id', '=', ctx.company.id)
    .where('slug_en', '=', slug)
    .execute();

describe('scopes', () => {
  it('takes write:listings: a read key, no key and another company’s key change nothing', async () => {
    const { external, slug } = fresh();
    const byReader = await put(external, body(slug), ctx.reader);
    expect(byReader.status).toBe(403);
    // raw: no key at all
    const anonymous = await api.request(`/api/v1/external-listings/${external}`, {
      host: ctx.company.host,
      method: 'PUT',
      body: body(slug),
    });
    expect([401, 403]).toContain(anonymous.status);
    expect(await listingsNamed(slug)).toEqual([]);

    const created = await put(external, body(slug));
    expect(created.status, created.text).toBe(201);
    const other = await createCompany(api);
    const foreign = await createKey(api, other.id, { scopes: ['write:listings'] });
    for (const action of ['publish', 'withdraw'] as const) {
      expect((await act(external, action, foreign.secret, other.host)).status).toBe(404);
    }
    expect((await act(external, 'publish', ctx.reader)).status).toBe(403);
    expect(await listingsNamed(slug)).toEqual([{ id: created.json.listing_id, status: 'draft' }]);
  });
});

describe('create, replace, publish, withdraw', () => {
  it('creates a draft once; the same body again is the same listing, unchanged; another body updates it', async () => {
    const { external, slug } = fresh();
    const first = await put(external, body(slug));
    expect(first.status, first.text).toBe(201);
    const [source, id] = external.split(':') as [string, string];
    expect(first.json).toEqual({
      listing_id: expect.any(String),
      external_id: external,
      external: { source, id },
      slug: { en: slug, ar: `شقة-${slug}` },
      status: 'draft',
      created: true,
      changed: true,
      warnings: [],
    });
    const listingId = first.json.listing_id as string;
    const again = await put(external, body(slug));
    expect(again.status, again.text).toBe(200);
    expect(again.json).toMatchObject({ listing_id: listingId, created: false, changed: false });
    expect(await listingsNamed(slug)).toHaveLength(1);
    const links = await api.db
      .selectFrom('external_ids')
      .select('record_id')
      .where('company_id', '=', ctx.company.id)
      .where('record_type', '=', 'listing')
      .where('source', '=', source)
      .where('external_id', '=', id)
      .execute();
    expect(links).toEqual([{ record_id: listingId }]);

    const changed = await put(external, body(slug, { price: '130000.00' }));
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json).toMatchObject({ listing_id: listingId, created: false, changed: true, status: 'draft' });
    const price = await api.db.selectFrom('listings').select('price').where('id', '=', listingId).executeTakeFirstOrThrow();
    expect(Number(price.price)).toBe(130000);

    const data = { listing_id: listingId, external_reference: external };
    const caused_by = `api:${ctx.prefix}`;
    expect(await eventsOf(listingId)).toEqual([
      { type: 'listing.created', data, caused_by },
      { type: 'listing.updated', data, caused_by },
    ]);
    const audit = await api.db
      .selectFrom('audit_log')
      .select(['action', 'actor'])
      .where('company_id', '=', ctx.company.id)
      .where('subject', '=', listingId)
      .orderBy('id')
      .execute();
    expect(audit).toEqual([
      { action: 'listing.created', actor: caused_by },
      { action: 'listing.updated', actor: caused_by },
    ]);
  });

  it('publishes and withdraws under the listing states; the kept page changes at once', async () => {
    const { external, slug } = fresh();
    const created = await put(external, body(slug));
    const listingId = created.json.listing_id as string;
    expect((await read(slug)).status).toBe(404);
    expect((await act(external, 'withdraw')).status).toBe(409);

    // raw: the public list with its ETag
    const list = () => api.request('/api/v1/listings', { host: ctx.company.host });
    const before = await list();
    const published = await act(external, 'publish');
    expect(published.status, published.text).toBe(200);
    expect(published.json).toMatchObject({ listing_id: listingId, status: 'published', changed: true });
    const after = await list();
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect((after.json.results as Array<{ slug: { en: string } }>).map((r) => r.slug.en)).toContain(slug);

    const page = await read(slug);
    expect(page.status, page.text).toBe(200);
    expect(page.json.title).toEqual({ en: `Marina flat ${slug}`, ar: `شقة المارينا ${slug}` });
    expect((page.json.photos as Array<{ alt: unknown }>).map((p) => p.alt)).toEqual([
      { en: 'The living room', ar: 'غرفة المعيشة' },
      { en: 'The view', ar: 'الإطلالة' },
    ]);
    const etag = page.headers.get('etag') as string;
    expect((await read(slug, { 'If-None-Match': etag })).status).toBe(304);

    // A replacement of a published listing shows at once: the kept page's ETag moves, the new title is read.
    const retitled = await put(external, body(slug, { title: { en: 'Retitled', ar: 'عنوان جديد' } }));
    expect(retitled.json).toMatchObject({ status: 'published', changed: true });
    const fresher = await read(slug, { 'If-None-Match': etag });
    expect(fresher.status).toBe(200);
    expect(fresher.json.title).toEqual({ en: 'Retitled', ar: 'عنوان جديد' });

    expect((await act(external, 'publish')).json).toMatchObject({ status: 'published', changed: false });
    const withdrawn = await act(external, 'withdraw');
    expect(withdrawn.json).toMatchObject({ status: 'withdrawn', changed: true });
    expect((await read(slug)).json).toEqual({ slug: { en: slug, ar: `شقة-${slug}` }, status: 'withdrawn' });
    expect((await act(external, 'withdraw')).json).toMatchObject({ status: 'withdrawn', changed: false });
    expect((await act('acme:nobody', 'publish')).status).toBe(404);

    const data = { listing_id: listingId, external_reference: external };
    expect((await eventsOf(listingId)).map((e) => [e.type, e.data])).toEqual([
      ['listing.created', data],
      ['listing.published', data],
      ['listing.updated', data],
      ['listing.withdrawn', data],
    ]);
  });

  it('moves the slug when the body names another: the old one is free, the other listing’s is refused', async () => {
    const one = fresh();
    const two = fresh();
    const first = await put(one.external, body(one.slug));
    await put(two.external, body(two.slug));
    const taken = await put(one.external, body(two.slug, { slug: { en: two.slug } }));
    expect(taken.status, taken.text).toBe(409);
    expect(taken.json.errors[0].path).toBe('slug.en');
    const renamed = `${one.slug}-renamed`;
    const moved = await put(one.external, body(renamed));
    expect(moved.json).toMatchObject({ listing_id: first.json.listing_id, slug: { en: renamed } });
    expect(await listingsNamed(one.slug)).toEqual([]);
  });
});

describe('the import’s checks and warnings', () => {
  it('answers 400 at the field and changes nothing', async () => {
    const { external, slug } = fresh();
    const pathsOf = async (payload: unknown, id = external) => {
      const res = await put(id, payload);
      expect(res.status, res.text).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      return (res.json.errors as Array<{ path: string }>).map((e) => e.path);
    };
    expect(await pathsOf(body(slug, { city: 'atlantis' }))).toEqual(['city']);
    expect(await pathsOf(body(slug, { area: 'dubai' }))).toEqual(['area']);
    expect(await pathsOf(body(slug, { agent: 'Nobody' }))).toEqual(['agent']);
    expect(await pathsOf(body(slug, { price_period: null }))).toEqual(['price_period']);
    expect(await pathsOf(body(slug, { price: '1.001' }))).toEqual(['price']);
    expect(await pathsOf(body(slug, { listing_type: 'sale', price_period: 'total', cheques: 4 }))).toEqual(['cheques']);
    expect(await pathsOf(body(slug, { slug: { en: 'Not A Slug' } }))).toEqual(['slug.en']);
    expect(await pathsOf(body(slug, { status: 'published' }))).toEqual(['status']);
    const elsewhere = [{ url: 'https://images.example.org/a.jpg', alt: { en: 'A' } }];
    expect(await pathsOf(body(slug, { photos: elsewhere }))).toEqual(['photos.0.url']);
    expect(await pathsOf(body(slug), 'no-source-here')).toEqual(['external_id']);
    expect(await listingsNamed(slug)).toEqual([]);
  });

  it('warns of an ended permit and of no photos, and keeps the listing', async () => {
    const { external, slug } = fresh();
    const permit = { number: '7112345678', authority: 'dld', expires_on: '2020-01-31' };
    const res = await put(external, body(slug, { permit, photos: [] }));
    expect(res.status, res.text).toBe(201);
    expect((res.json.warnings as Array<{ code: string }>).map((w) => w.code)).toEqual(['permit_expired', 'no_photos']);
    const row = await api.db
      .selectFrom('listings')
      .select('permit_expired')
      .where('id', '=', res.json.listing_id)
      .executeTakeFirstOrThrow();
    expect(row.permit_expired).toBe(true);
  });
});

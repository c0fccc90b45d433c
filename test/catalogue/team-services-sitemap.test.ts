import { describe, expect, it } from 'vitest';
import { demo } from '../support/harness';
import { bySlug, catalogue, pageLengths, patchSettings, publish, published, sorted, walk, withdraw } from './support';
import { adminOf, createKey, demoCompany, useApi } from '../support/world';
import { testClient } from '../support/client';

const api = useApi();
/** A team profile added, and a service put, through the typed admin client (any body). */
const addProfile = (companyId: string, body: Record<string, unknown>) =>
  adminOf(api).POST('/admin/v1/companies/{company_id}/team', {
    params: { path: { company_id: companyId } },
    body: body as never,
  });
const putService = (companyId: string, key: string, body: Record<string, unknown>) =>
  adminOf(api).PUT('/admin/v1/companies/{company_id}/services/{key}', {
    params: { path: { company_id: companyId, key } },
    body: body as never,
  });

describe('GET /team', () => {
  it.each([
    ['no setting', {}],
    ['team_module false', { team_module: false }],
  ])('answers 404 when the company has %s', async (_name, settings) => {
    const { host } = await demoCompany(api, settings);
    const res = await catalogue(api, host).client.GET('/api/v1/team');
    expect(res.response.status).toBe(404);
    expect(res.response.headers.get('content-type')).toBe('application/problem+json');
    expect(res.error?.code).toBe('not_found');
    expect(JSON.stringify(res.error)).not.toContain('Sara');
  });

  it('gives only the published profiles, by position, with the English text where Arabic is missing', async () => {
    const { host } = await demoCompany(api, { team_module: true });
    const body = await catalogue(api, host).team();
    expect(body.next_cursor).toBeNull();
    expect(body.results.map((p: any) => p.name)).toEqual(['Sara Haddad', 'Omar Al Mansoori', 'Priya Nair', 'Layla Khoury']);
    const priya = body.results[2];
    const source = demo.team.find((t) => t.name === 'Priya Nair')!;
    expect(priya.role).toEqual({ en: source.role.en, ar: source.role.en });
    expect(priya.bio).toEqual({ en: source.bio.en, ar: source.bio.en });
    expect(Object.keys(priya).sort()).toEqual(['bio', 'email', 'id', 'languages', 'name', 'phone', 'photo_url', 'role']);
    expect(body.results[0].role).toEqual({ en: 'Sales Manager', ar: 'مديرة المبيعات' });
    expect(body.results[0].languages).toEqual(['en', 'ar', 'fr']);
  });

  it('orders by position rather than by creation, and leaves an unpublished new profile out', async () => {
    const { id, host } = await demoCompany(api, { team_module: true });
    const add = async (body: Record<string, unknown>) => (await addProfile(id, body)).response.status;
    expect(await add({ name: 'Zed First', position: 0, role: { en: 'Director' } })).toBe(201);
    expect(await add({ name: 'Amy Last', position: 9 })).toBe(201);
    expect(await add({ name: 'Hidden Person', position: 2, published: false })).toBe(201);
    const body = await catalogue(api, host).team();
    expect(body.results.map((p: any) => p.name)).toEqual([
      'Zed First',
      'Sara Haddad',
      'Omar Al Mansoori',
      'Priya Nair',
      'Layla Khoury',
      'Amy Last',
    ]);
    expect(body.results[0].role).toEqual({ en: 'Director', ar: 'Director' });
  });

  it('answers 404 again once the module is switched off', async () => {
    const { id, host } = await demoCompany(api, { team_module: true });
    const team = async () => (await catalogue(api, host).client.GET('/api/v1/team')).response.status;
    expect(await team()).toBe(200);
    await patchSettings(api, id, { team_module: false });
    expect(await team()).toBe(404);
  });
});

describe('GET /services', () => {
  it('gives each service with key, name in both languages and kind, in the company order', async () => {
    const { host } = await demoCompany(api);
    const body = await catalogue(api, host).services();
    expect(body.results).toEqual(demo.services.map((s) => ({ key: s.key, name: s.name, kind: s.kind })));
    for (const s of body.results) expect(Object.keys(s).sort()).toEqual(['key', 'kind', 'name']);
  });

  it('follows the company edits: a new service (English only) appears, a removed one goes', async () => {
    const { id, host } = await demoCompany(api);
    const put = await putService(id, 'home-staging', { name: { en: 'Home staging' }, kind: 'staging' });
    expect(put.response.status).toBe(200);
    const removed = await adminOf(api).DELETE('/admin/v1/companies/{company_id}/services/{key}', {
      params: { path: { company_id: id, key: 'mortgage-advice' } },
    });
    expect(removed.response.status).toBe(204);
    const body = await catalogue(api, host).services();
    const keys = body.results.map((s: any) => s.key);
    expect(sorted(keys)).toEqual(
      sorted([...demo.services.map((s) => s.key).filter((k) => k !== 'mortgage-advice'), 'home-staging']),
    );
    expect(body.results.find((s: any) => s.key === 'home-staging')).toEqual({
      key: 'home-staging',
      name: { en: 'Home staging', ar: 'Home staging' },
      kind: 'staging',
    });
  });

  it('is also read with a server key holding read:listings or write:leads, and refused with another scope', async () => {
    const { id, host } = await demoCompany(api);
    for (const scope of ['read:listings', 'write:leads'] as const) {
      const { secret } = await createKey(api, id, { scopes: [scope] });
      const res = await testClient(api, { host, serverKey: secret }).GET('/api/v1/services');
      expect(res.response.status, scope).toBe(200);
      expect(res.data?.results).toHaveLength(demo.services.length);
    }
    const { secret } = await createKey(api, id, { scopes: ['read:team'] });
    const res = await testClient(api, { host, serverKey: secret }).GET('/api/v1/services');
    expect(res.response.status).toBe(403);
    expect(res.error?.code).toBe('scope_missing');
  });
});

describe('GET /sitemap', () => {
  const pathsOf = (slug: { en: string; ar?: string }) => ({
    en: `/en/listings/${slug.en}`,
    ar: `/ar/listings/${encodeURIComponent(slug.ar ?? slug.en)}`,
  });
  const entriesOf = async (host: string, pageSize = 4) =>
    (await walk(api, host, '/api/v1/sitemap', { page_size: pageSize })).results;

  it('gives every published listing exactly once across pages, with both paths and hreflang alternates', async () => {
    const { host } = await demoCompany(api);
    const { pages, results } = await walk(api, host, '/api/v1/sitemap', { page_size: 4 });
    expect(pages.map((p) => p.length)).toEqual(pageLengths(published.length, 4));
    expect(sorted(results.map((e) => e.paths.en))).toEqual(sorted(published.map((l) => pathsOf(l.slug).en)));
    expect(new Set(results.map((e) => e.paths.en)).size).toBe(published.length);
    for (const entry of results) {
      const listing = published.find((l) => pathsOf(l.slug).en === entry.paths.en)!;
      expect(entry.paths).toEqual(pathsOf(listing.slug));
      expect(entry.alternates).toEqual([
        { hreflang: 'en', path: entry.paths.en },
        { hreflang: 'ar', path: entry.paths.ar },
        { hreflang: 'x-default', path: entry.paths.en },
      ]);
    }
  });

  it('gives lastmod as an ISO instant, the listing’s last update', async () => {
    const { host } = await demoCompany(api);
    const entries = await entriesOf(host, 100);
    const list = await catalogue(api, host).listings({ page_size: 100 });
    for (const entry of entries) {
      expect(entry.lastmod).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/);
      expect(new Date(entry.lastmod).toISOString()).toBe(entry.lastmod);
      const listing = list.results.find((r: any) => r.path.en === entry.paths.en);
      expect(entry.lastmod).toBe(listing.updated_at);
    }
  });

  it('gives 20 entries by default and next_cursor null on the last page', async () => {
    const { host } = await demoCompany(api);
    // More than one default page of published listings, so the default size shows.
    expect(published.length).toBeGreaterThan(20);
    const { pages } = await walk(api, host, '/api/v1/sitemap');
    expect(pages.map((p) => p.length)).toEqual(pageLengths(published.length, 20));
  });

  it('drops a listing once withdrawn and adds one once published', async () => {
    const { id, host } = await demoCompany(api);
    const sea = bySlug('marina-gate-2br-sea-view');
    const draft = bySlug('al-reem-2br-holiday-home');
    const before = (await entriesOf(host)).map((e) => e.paths.en);
    expect(before).toContain(pathsOf(sea.slug).en);
    expect(before).not.toContain(pathsOf(draft.slug).en);
    expect((await withdraw(api, id, sea.slug.en)).response.status).toBe(200);
    expect((await publish(api, id, draft.slug.ar)).response.status).toBe(200);
    const after = (await entriesOf(host)).map((e) => e.paths.en);
    expect(after).toHaveLength(published.length);
    expect(after).not.toContain(pathsOf(sea.slug).en);
    expect(after.filter((p) => p === pathsOf(draft.slug).en)).toHaveLength(1);
    expect(sorted(after)).toEqual(sorted([...before.filter((p) => p !== pathsOf(sea.slug).en), pathsOf(draft.slug).en]));
  });

  it('lists only the enabled types', async () => {
    const { host } = await demoCompany(api, { enabled_types: ['holiday_home'] });
    const entries = await entriesOf(host);
    const expected = published.filter((l) => l.listing_type === 'holiday_home').map((l) => pathsOf(l.slug).en);
    expect(sorted(entries.map((e) => e.paths.en))).toEqual(sorted(expected));
  });
});

describe('the admin writes of team profiles and services', () => {
  it('answers 404 for a company that does not exist, and writes nothing', async () => {
    const unknown = '00000000-0000-4000-8000-00000000abcd';
    const profile = await addProfile(unknown, { name: 'Nobody' });
    expect(profile.response.status, JSON.stringify(profile.error)).toBe(404);
    expect(profile.error?.code).toBe('not_found');
    const service = await putService(unknown, 'valuation', { name: { en: 'Valuation' }, kind: 'sale' });
    expect(service.response.status, JSON.stringify(service.error)).toBe(404);
    expect(service.error?.code).toBe('not_found');
  });
});

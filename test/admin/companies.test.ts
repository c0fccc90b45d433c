import { describe, expect, it } from 'vitest';
import { randomToken } from '../../lib/crypto';
import { type AdminBody, testClient } from '../support/client';
import { demo } from '../support/harness';
import { adminOf, createCompany, demoCompany, importCatalogue, useApi } from '../support/world';

const api = useApi();
const admin = () => adminOf(api);
/** The typed public client of a host, without a key (what anyone may read). */
const on = (host: string) => testClient(api, { host });
const companyPath = (company_id: string) => ({ params: { path: { company_id } } });
/** POST /admin/v1/companies of any body (a wrong one on purpose, too). */
const postCompany = (body: Record<string, unknown>) =>
  admin().POST('/admin/v1/companies', { body: body as AdminBody<'createCompany'> });
const patchCompany = (company_id: string, body: Record<string, unknown>) =>
  admin().PATCH('/admin/v1/companies/{company_id}', { ...companyPath(company_id), body: body as never });
const importInto = (company_id: string, body: unknown) =>
  admin().POST('/admin/v1/companies/{company_id}/catalogue/import', {
    ...companyPath(company_id),
    body: body as AdminBody<'importCompanyCatalogue'>,
  });
const services = (host: string) => on(host).GET('/api/v1/services');
const readListing = (host: string, slug: string) => on(host).GET('/api/v1/listings/{slug}', { params: { path: { slug } } });

const uniqueHost = () => `h-${randomToken(10).toLowerCase()}.test`;
const valid = () => ({
  name: 'Acme Homes',
  hosts: [uniqueHost()],
  environment: 'production',
  currency: 'AED',
  time_zone: 'Asia/Dubai',
});

describe('companies', () => {
  it('creates a company that answers on its hosts, with the port ignored', async () => {
    const body = { ...valid(), hosts: [uniqueHost(), uniqueHost()] };
    const res = await postCompany(body);
    expect(res.response.status).toBe(201);
    expect(res.data?.hosts).toEqual([...body.hosts].sort());
    for (const host of body.hosts) {
      expect((await services(host)).response.status).toBe(200);
      expect((await services(`${host}:8443`)).response.status).toBe(200);
    }
  });

  it('refuses a host that another company already has, and changes nothing', async () => {
    const first = await createCompany(api);
    const count = async () => (await admin().GET('/admin/v1/companies')).data?.results.length;
    const before = await count();
    const res = await postCompany({ ...valid(), hosts: [first.host] });
    expect(res.response.status).toBe(409);
    expect(res.error?.code).toBe('conflict');
    expect(await count()).toBe(before);
  });

  it.each([
    [{ currency: 'dirham' }, 'currency'],
    [{ time_zone: 'Mars/Olympus' }, 'time_zone'],
    [{ environment: 'staging' }, 'environment'],
    [{ hosts: ['Example.COM'] }, 'hosts.0'],
    [{ hosts: ['example.com:80'] }, 'hosts.0'],
    [{ hosts: [] }, 'hosts'],
    [{ settings: { path_pattern: { en: 'listings/{slug}' } } }, 'settings.path_pattern.en'],
    [{ settings: { enabled_types: ['castle'] } }, 'settings.enabled_types.0'],
    [{ settings: { unknown: true } }, 'settings.unknown'],
    [{ extra: 1 }, 'extra'],
  ])('refuses %j naming %s', async (patch, path) => {
    const res = await postCompany({ ...valid(), ...patch });
    expect(res.response.status).toBe(400);
    expect(res.error?.errors?.map((e) => e.path)).toContain(path);
  });

  it('merges settings on update and moves hosts', async () => {
    const company = await createCompany(api, { settings: { team_module: true, hide_prices: false } });
    const newHost = uniqueHost();
    const res = await patchCompany(company.id, { hosts: [newHost], settings: { hide_prices: true } });
    expect(res.response.status).toBe(200);
    expect(res.data?.settings).toEqual({ team_module: true, hide_prices: true });
    expect((await services(company.host)).response.status).toBe(404);
    expect((await services(newHost)).response.status).toBe(200);
  });

  it('keeps the hosts it still lists, adds the new ones, and refuses (naming it) a host another company has', async () => {
    const company = await createCompany(api);
    const other = await createCompany(api);
    const added = uniqueHost();
    const kept = await patchCompany(company.id, { hosts: [company.host, added] });
    expect(kept.response.status).toBe(200);
    expect(kept.data?.hosts).toEqual([company.host, added].sort());
    expect((await services(added)).response.status).toBe(200);

    const taken = await patchCompany(company.id, { name: 'Renamed', hosts: [other.host] });
    expect(taken.response.status).toBe(409);
    expect(taken.error?.detail).toContain(other.host);
    const after = (await admin().GET('/admin/v1/companies/{company_id}', companyPath(company.id))).data;
    expect(after?.hosts).toEqual([company.host, added].sort());
    expect(after?.name).not.toBe('Renamed');
  });

  it('answers 404 for an unknown company and 400 for a malformed id', async () => {
    const read = (id: string) => admin().GET('/admin/v1/companies/{company_id}', companyPath(id));
    expect((await read('00000000-0000-4000-8000-000000000000')).response.status).toBe(404);
    expect((await read('nope')).response.status).toBe(400);
  });
});

describe('catalogue import', () => {
  it('imports the demo catalogue and is idempotent (upsert by slug)', async () => {
    const company = await createCompany(api);
    const first = await importCatalogue(api, company.id);
    expect(first.listings).toBe(demo.listings.length);
    await importCatalogue(api, company.id);
    const rows = await api.db.selectFrom('listings').select('slug_en').where('company_id', '=', company.id).execute();
    expect(rows).toHaveLength(demo.listings.length);
    const photos = await api.db
      .selectFrom('listing_photos as p')
      .innerJoin('listings as l', 'l.id', 'p.listing_id')
      .select('p.id')
      .where('l.company_id', '=', company.id)
      .execute();
    expect(photos).toHaveLength(demo.listings.reduce((n, l) => n + l.photos.length, 0));
  });

  it('changes a listing on re-import', async () => {
    const company = await createCompany(api);
    const listing = { ...demo.listings[0]!, status: 'published', title: { en: 'Old title' } };
    await importCatalogue(api, company.id, { areas: demo.areas, listings: [listing] });
    await importCatalogue(api, company.id, { areas: demo.areas, listings: [{ ...listing, title: { en: 'New title' } }] });
    const res = await readListing(company.host, listing.slug.en);
    expect(res.data && 'title' in res.data ? res.data.title : res.data).toEqual({ en: 'New title', ar: 'New title' });
  });

  it('is all or nothing: a bad listing at the end leaves nothing imported', async () => {
    const company = await createCompany(api);
    const broken = { ...demo.listings[1]!, area: 'atlantis' };
    const res = await importInto(company.id, { ...demo, listings: [...demo.listings.slice(2), broken] });
    expect(res.response.status).toBe(400);
    expect(res.error?.detail).toContain('atlantis');
    for (const table of ['listings', 'areas', 'services', 'team_profiles'] as const) {
      const rows = await api.db.selectFrom(table).select('company_id').where('company_id', '=', company.id).execute();
      expect(rows, table).toHaveLength(0);
    }
  });

  it.each([
    [{ kind: 'area', slug: { en: 'orphan' }, name: { en: 'Orphan' }, parent: null }, 'needs a parent city'],
    [{ kind: 'project', slug: { en: 'p1' }, name: { en: 'P' }, parent: 'dubai' }, 'as its area, but it is a city'],
    [{ kind: 'area', slug: { en: 'a1' }, name: { en: 'A' }, parent: 'nowhere' }, 'unknown place "nowhere"'],
  ])('refuses an area whose parent is missing or of the wrong kind (%j)', async (area, message) => {
    const company = await createCompany(api);
    const city = { kind: 'city', slug: { en: 'dubai' }, name: { en: 'Dubai' }, parent: null };
    const res = await importInto(company.id, { areas: [city, area] });
    expect(res.response.status).toBe(400);
    expect(res.error?.detail).toContain(message);
  });

  it('refuses invalid listing fields with their paths', async () => {
    const company = await createCompany(api);
    const bad = { ...demo.listings[0]!, price: '12,5', slug: { en: 'Bad Slug' } };
    const res = await importInto(company.id, { listings: [bad] });
    expect(res.response.status).toBe(400);
    const paths = res.error?.errors?.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['listings.0.price', 'listings.0.slug.en']));
  });
});

describe('publishing', () => {
  it('withdraws a listing (slug stays readable) and publishes it again', async () => {
    const company = await demoCompany(api);
    const slug = demo.listings.find((l) => l.status === 'published')!.slug;
    const onListing = { params: { path: { company_id: company.id, slug: slug.en } } };
    const withdrawn = await admin().POST('/admin/v1/companies/{company_id}/listings/{slug}/withdraw', onListing);
    expect(withdrawn.data?.status).toBe('withdrawn');
    const read = await readListing(company.host, slug.ar);
    expect(read.data).toEqual({ slug, status: 'withdrawn' });
    const list = await on(company.host).GET('/api/v1/listings', { params: { query: { page_size: 100 } } });
    expect(list.data?.results.map((l) => l.slug.en)).not.toContain(slug.en);
    await admin().POST('/admin/v1/companies/{company_id}/listings/{slug}/publish', onListing);
    expect((await readListing(company.host, slug.en)).data?.status).toBe('published');
  });

  it('answers 404 for an unknown slug', async () => {
    const company = await createCompany(api);
    const res = await admin().POST('/admin/v1/companies/{company_id}/listings/{slug}/publish', {
      params: { path: { company_id: company.id, slug: 'nothing' } },
    });
    expect(res.response.status).toBe(404);
  });
});

describe('team profiles and services', () => {
  it('adds, replaces and deletes a team profile, seen on /team', async () => {
    const company = await createCompany(api, { settings: { team_module: true } });
    const created = await admin().POST('/admin/v1/companies/{company_id}/team', {
      ...companyPath(company.id),
      body: { name: 'Lina Odeh', role: { en: 'Broker', ar: 'وسيطة' }, position: 2 },
    });
    expect(created.response.status).toBe(201);
    const id = created.data?.id as string;
    const team = () => on(company.host).GET('/api/v1/team');
    expect((await team()).data?.results.map((p) => p.name)).toEqual(['Lina Odeh']);
    const profile = { params: { path: { company_id: company.id, profile_id: id } } };
    await admin().PUT('/admin/v1/companies/{company_id}/team/{profile_id}', {
      ...profile,
      body: { name: 'Lina Odeh', published: false },
    });
    expect((await team()).data?.results).toEqual([]);
    const remove = () => admin().DELETE('/admin/v1/companies/{company_id}/team/{profile_id}', profile);
    expect((await remove()).response.status).toBe(204);
    expect((await remove()).response.status).toBe(404);
  });

  it('puts and deletes a service, seen on /services', async () => {
    const company = await createCompany(api);
    const service = { params: { path: { company_id: company.id, key: 'valuation' } } };
    const put = await admin().PUT('/admin/v1/companies/{company_id}/services/{key}', {
      ...service,
      body: { name: { en: 'Free valuation' }, kind: 'valuation' },
    });
    expect(put.response.status).toBe(200);
    const listed = await services(company.host);
    expect(listed.data?.results).toEqual([
      { key: 'valuation', name: { en: 'Free valuation', ar: 'Free valuation' }, kind: 'valuation' },
    ]);
    expect((await admin().DELETE('/admin/v1/companies/{company_id}/services/{key}', service)).response.status).toBe(204);
    expect((await services(company.host)).data?.results).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { randomToken } from '../../lib/crypto';
import { demo } from '../support/harness';
import { createCompany, demoCompany, importCatalogue, useApi } from '../support/world';

const api = useApi();

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
    const res = await api.admin('/companies', { body });
    expect(res.status).toBe(201);
    expect(res.json.hosts).toEqual([...body.hosts].sort());
    for (const host of body.hosts) {
      expect((await api.request('/api/v1/services', { host })).status).toBe(200);
      expect((await api.request('/api/v1/services', { host: `${host}:8443` })).status).toBe(200);
    }
  });

  it('refuses a host that another company already has, and changes nothing', async () => {
    const first = await createCompany(api);
    const before = (await api.admin('/companies')).json.results.length;
    const res = await api.admin('/companies', { body: { ...valid(), hosts: [first.host] } });
    expect(res.status).toBe(409);
    expect(res.json.code).toBe('conflict');
    expect((await api.admin('/companies')).json.results.length).toBe(before);
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
    const res = await api.admin('/companies', { body: { ...valid(), ...patch } });
    expect(res.status).toBe(400);
    expect(res.json.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it('merges settings on update and moves hosts', async () => {
    const company = await createCompany(api, { settings: { team_module: true, hide_prices: false } });
    const newHost = uniqueHost();
    const res = await api.admin(`/companies/${company.id}`, {
      method: 'PATCH',
      body: { hosts: [newHost], settings: { hide_prices: true } },
    });
    expect(res.status).toBe(200);
    expect(res.json.settings).toEqual({ team_module: true, hide_prices: true });
    expect((await api.request('/api/v1/services', { host: company.host })).status).toBe(404);
    expect((await api.request('/api/v1/services', { host: newHost })).status).toBe(200);
  });

  it('keeps the hosts it still lists, adds the new ones, and refuses (naming it) a host another company has', async () => {
    const company = await createCompany(api);
    const other = await createCompany(api);
    const added = uniqueHost();
    const kept = await api.admin(`/companies/${company.id}`, { method: 'PATCH', body: { hosts: [company.host, added] } });
    expect(kept.status).toBe(200);
    expect(kept.json.hosts).toEqual([company.host, added].sort());
    expect((await api.request('/api/v1/services', { host: added })).status).toBe(200);

    const taken = await api.admin(`/companies/${company.id}`, {
      method: 'PATCH',
      body: { name: 'Renamed', hosts: [other.host] },
    });
    expect(taken.status).toBe(409);
    expect(taken.json.detail).toContain(other.host);
    const after = (await api.admin(`/companies/${company.id}`)).json;
    expect(after.hosts).toEqual([company.host, added].sort());
    expect(after.name).not.toBe('Renamed');
  });

  it('answers 404 for an unknown company and 400 for a malformed id', async () => {
    expect((await api.admin('/companies/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await api.admin('/companies/nope')).status).toBe(400);
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
    const res = await api.request(`/api/v1/listings/${listing.slug.en}`, { host: company.host });
    expect(res.json.title).toEqual({ en: 'New title', ar: 'New title' });
  });

  it('is all or nothing: a bad listing at the end leaves nothing imported', async () => {
    const company = await createCompany(api);
    const broken = { ...demo.listings[1]!, area: 'atlantis' };
    const res = await api.admin(`/companies/${company.id}/catalogue/import`, {
      body: { ...demo, listings: [...demo.listings.slice(2), broken] },
    });
    expect(res.status).toBe(400);
    expect(res.json.detail).toContain('atlantis');
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
    const res = await api.admin(`/companies/${company.id}/catalogue/import`, { body: { areas: [city, area] } });
    expect(res.status).toBe(400);
    expect(res.json.detail).toContain(message);
  });

  it('refuses invalid listing fields with their paths', async () => {
    const company = await createCompany(api);
    const bad = { ...demo.listings[0]!, price: '12,5', slug: { en: 'Bad Slug' } };
    const res = await api.admin(`/companies/${company.id}/catalogue/import`, { body: { listings: [bad] } });
    expect(res.status).toBe(400);
    const paths = res.json.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['listings.0.price', 'listings.0.slug.en']));
  });
});

describe('publishing', () => {
  it('withdraws a listing (slug stays readable) and publishes it again', async () => {
    const company = await demoCompany(api);
    const slug = demo.listings.find((l) => l.status === 'published')!.slug;
    const withdrawn = await api.admin(`/companies/${company.id}/listings/${slug.en}/withdraw`, { method: 'POST' });
    expect(withdrawn.json.status).toBe('withdrawn');
    const read = await api.request(`/api/v1/listings/${encodeURIComponent(slug.ar)}`, { host: company.host });
    expect(read.json).toEqual({ slug, status: 'withdrawn' });
    const list = await api.request('/api/v1/listings?page_size=100', { host: company.host });
    expect(list.json.results.map((l: { slug: { en: string } }) => l.slug.en)).not.toContain(slug.en);
    await api.admin(`/companies/${company.id}/listings/${slug.en}/publish`, { method: 'POST' });
    expect((await api.request(`/api/v1/listings/${slug.en}`, { host: company.host })).json.status).toBe('published');
  });

  it('answers 404 for an unknown slug', async () => {
    const company = await createCompany(api);
    const res = await api.admin(`/companies/${company.id}/listings/nothing/publish`, { method: 'POST' });
    expect(res.status).toBe(404);
  });
});

describe('team profiles and services', () => {
  it('adds, replaces and deletes a team profile, seen on /team', async () => {
    const company = await createCompany(api, { settings: { team_module: true } });
    const created = await api.admin(`/companies/${company.id}/team`, {
      body: { name: 'Lina Odeh', role: { en: 'Broker', ar: 'وسيطة' }, position: 2 },
    });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    const team = () => api.request('/api/v1/team', { host: company.host });
    expect((await team()).json.results.map((p: { name: string }) => p.name)).toEqual(['Lina Odeh']);
    await api.admin(`/companies/${company.id}/team/${id}`, { method: 'PUT', body: { name: 'Lina Odeh', published: false } });
    expect((await team()).json.results).toEqual([]);
    expect((await api.admin(`/companies/${company.id}/team/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await api.admin(`/companies/${company.id}/team/${id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('puts and deletes a service, seen on /services', async () => {
    const company = await createCompany(api);
    const put = await api.admin(`/companies/${company.id}/services/valuation`, {
      method: 'PUT',
      body: { name: { en: 'Free valuation' }, kind: 'valuation' },
    });
    expect(put.status).toBe(200);
    const services = await api.request('/api/v1/services', { host: company.host });
    expect(services.json.results).toEqual([
      { key: 'valuation', name: { en: 'Free valuation', ar: 'Free valuation' }, kind: 'valuation' },
    ]);
    expect((await api.admin(`/companies/${company.id}/services/valuation`, { method: 'DELETE' })).status).toBe(204);
    expect((await api.request('/api/v1/services', { host: company.host })).json.results).toEqual([]);
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import type { Answer } from '../../clients/typescript/src/index';
import { runScheduledWork } from '../../functions/jobs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminCli, cliTimeout } from '../support/admin-cli';
import { testClient } from '../support/client';
import { textAt, validateFeed } from './formats';
import { fetchFeed, idsBySlug, portalCompany, portalListing, portalsAdmin, referenceOf } from './support';
import { createCompany, createKey, useApi } from '../support/world';

/**
 * Advertising permits (issue 25): set through the import and the admin API, shown on the public listing and its
 * JSON-LD, checked per portal (GET /api/v1/portal-check and its admin twin), and followed by scheduled work.
 */

const api = useApi();
// Back to real time before the API closes (hooks run in reverse order: this one first).
afterAll(() => api.clock.set(null));

/** The typed client on the company's host (with a server key, or none). */
const clientFor = (host: string, serverKey?: string) => testClient(api, { host, serverKey });

const events = (companyId: string, type: string) =>
  api.db.selectFrom('events').select(['data']).where('company_id', '=', companyId).where('type', '=', type).execute();

describe('the portal check', () => {
  it('names what keeps each listing off each portal, with a server key (read:listings) or the admin, never a publishable key', async () => {
    const company = await portalCompany(api, [
      portalListing('check-ok', {
        published_at: '2026-01-01T00:00:00Z',
        permit: { number: '1111', authority: 'dld', expires_on: '2027-06-30' },
      }),
      portalListing('check-dup', {
        published_at: '2026-02-01T00:00:00Z',
        permit: { number: '1111', authority: 'dld', expires_on: '2027-06-30' },
      }),
      portalListing('check-dup-lease', {
        listing_type: 'lease',
        price_period: 'year',
        permit: { number: '1111', authority: 'dld', expires_on: '2027-06-30' },
      }),
      portalListing('check-offplan', {
        completion: 'off_plan',
        off_plan: { sale_type: 'new', dld_waiver: 0 },
        permit: { number: '1111', authority: 'dld', expires_on: '2027-06-30' },
      }),
      // Bayut requires an off-plan listing's sale type (offplanDetails_saleType); Property Finder asks for none.
      portalListing('check-offplan-bare', { completion: 'off_plan' }),
      portalListing('check-expired', { permit: { number: '2222', authority: 'dld', expires_on: '2026-01-31' } }),
      portalListing('check-missing', { permit: null }),
      portalListing('check-wrong', { permit: { number: '3333', authority: 'dtcm', expires_on: '2027-06-30' } }),
      portalListing('check-thin', { price: null, price_period: null, agent: null, photos: [], description: { en: 'Short.' } }),
      portalListing('check-unknown', { property_type: 'castle', size_sqm: null, area: null, project: null }),
      portalListing('check-draft', { status: 'draft', permit: { number: '1111', authority: 'dld', expires_on: '2027-06-30' } }),
    ]);
    const { secret } = await createKey(api, company.id, { scopes: ['read:listings'] });
    const client = clientFor(company.host, secret);
    const all: Answer<'listPortalChecks'>['results'] = [];
    for (let cursor: string | undefined; ; ) {
      const page = await client.GET('/api/v1/portal-check', { params: { query: { page_size: 4, cursor } } });
      expect(page.response.status, JSON.stringify(page.error)).toBe(200);
      all.push(...(page.data?.results ?? []));
      if (!page.data?.next_cursor) break;
      cursor = page.data.next_cursor;
    }
    const codes = (slug: string, portal: 'propertyfinder' | 'bayut' = 'propertyfinder') =>
      all.find((r) => r.slug === slug)?.portals[portal].problems.map((p) => p.code);
    expect(all).toHaveLength(11);
    expect(codes('check-ok')).toEqual([]);
    expect(all.find((r) => r.slug === 'check-ok')?.portals.propertyfinder.in_feed).toBe(true);
    expect(codes('check-dup')).toEqual(['permit_duplicate']);
    expect(codes('check-dup-lease')).toEqual([]); // another category
    expect(codes('check-offplan')).toEqual([]); // off-plan listings share a project permit
    expect(codes('check-offplan', 'bayut')).toEqual([]);
    expect(codes('check-offplan-bare')).toEqual([]);
    expect(codes('check-offplan-bare', 'bayut')).toEqual(['offplan_details_missing']);
    expect(codes('check-draft')).toEqual(['permit_duplicate']); // it would be refused once published
    expect(all.find((r) => r.slug === 'check-draft')?.portals.propertyfinder.in_feed).toBe(false);
    expect(codes('check-expired')).toEqual(['permit_expired']);
    expect(codes('check-missing')).toEqual(['permit_missing']);
    expect(codes('check-wrong')).toEqual(['permit_missing']);
    expect(codes('check-thin')).toEqual(['price_missing', 'too_few_photos', 'description_too_short', 'agent_missing']);
    expect(codes('check-unknown')).toEqual(['property_type_unknown', 'location_missing', 'size_missing']);
    expect(codes('check-unknown', 'bayut')).toEqual(['property_type_unknown', 'location_missing']);
    expect(all.find((r) => r.slug === 'check-thin')?.portals.bayut.problems[1]?.message).toContain('at least 3 ready photos');

    const blocked = await client.GET('/api/v1/portal-check', { params: { query: { blocked: 'true', page_size: 100 } } });
    expect(blocked.data?.results.map((r) => r.slug).sort()).toEqual(
      [
        'check-dup',
        'check-draft',
        'check-expired',
        'check-missing',
        'check-wrong',
        'check-thin',
        'check-unknown',
        'check-offplan-bare',
      ].sort(),
    );
    const admin = await portalsAdmin(api, company.id).check({ page_size: 100 });
    expect(admin.status).toBe(200);
    expect(admin.data?.results).toEqual(all);

    // The expired and the duplicate are absent from the feeds.
    const ids = await idsBySlug(api, company.id);
    const ref = (slug: string) => referenceOf(ids.get(slug) ?? '');
    const feed = validateFeed((await fetchFeed(api, company.host, company.feed.propertyfinder)).text, 'propertyfinder');
    const inFeed = feed.map((item) => textAt(item, 'reference_number'));
    expect(inFeed).toContain(ref('check-ok'));
    expect(inFeed).toContain(ref('check-offplan'));
    for (const slug of ['check-dup', 'check-expired', 'check-missing', 'check-draft']) expect(inFeed).not.toContain(ref(slug));

    // A publishable key reads nothing; a server key without read:listings neither.
    const { secret: pk } = await createKey(api, company.id, {
      kind: 'publishable',
      origins: ['https://site.example'],
      lead_types: ['enquiry'],
    });
    // The typed client sends a publishable key only on POSTs (it reads nothing): here it is sent on a read anyway.
    const withPublishable = await testClient(api, { host: company.host, headers: { 'X-Api-Key': pk } }).GET(
      '/api/v1/portal-check',
    );
    expect(withPublishable.response.status).toBe(403);
    expect(withPublishable.error?.code).toBe('key_wrong_kind');
    const { secret: other } = await createKey(api, company.id, { scopes: ['read:contacts'] });
    const underScoped = await clientFor(company.host, other).GET('/api/v1/portal-check');
    expect(underScoped.error?.code).toBe('scope_missing');
    expect((await clientFor(company.host).GET('/api/v1/portal-check')).error?.code).toBe('key_required');
  });

  it('needs no permit in a company without a market', async () => {
    const company = await portalCompany(api, [portalListing('no-market', { permit: null })], { market: null });
    const res = await portalsAdmin(api, company.id).check({});
    expect(res.data?.results[0]?.portals.propertyfinder).toEqual({ in_feed: true, opted_in: true, problems: [] });
  });
});

describe('permits on the public listing', () => {
  it('are shown in the list, the detail and its JSON-LD, and set, changed and removed by the admin', async () => {
    const company = await portalCompany(api, [
      portalListing('public-permit', {
        permit: {
          number: '7117361830',
          authority: 'dld',
          expires_on: '2027-06-30',
          verification_url: 'https://trakheesi.dubailand.gov.ae/rev/madmoun/listing/validate?khevJujtDig=abc',
        },
      }),
    ]);
    const client = clientFor(company.host);
    const detail = await client.GET('/api/v1/listings/{slug}', { params: { path: { slug: 'public-permit' } } });
    const permit = {
      number: '7117361830',
      authority: 'dld',
      expires_on: '2027-06-30',
      verification_url: 'https://trakheesi.dubailand.gov.ae/rev/madmoun/listing/validate?khevJujtDig=abc',
      status: 'valid',
    };
    expect(detail.data && 'permit' in detail.data ? detail.data.permit : undefined).toEqual(permit);
    const ld = detail.data && 'structured_data' in detail.data ? detail.data.structured_data.en : {};
    expect(ld.identifier).toEqual({
      '@type': 'PropertyValue',
      propertyID: 'trakheesi',
      value: '7117361830',
      url: permit.verification_url,
    });
    const list = await client.GET('/api/v1/listings');
    expect(list.data?.results[0]?.permit).toEqual(permit);
    const etag = list.response.headers.get('etag');

    // A permit whose last day has passed is expired at once; the ETag and the stored forms follow.
    const advertising = (body: Record<string, unknown>) => portalsAdmin(api, company.id).advertising('public-permit', body);
    const past = await advertising({ permit: { number: '8000', authority: 'dld', expires_on: '2020-01-01' } });
    expect(past.status, past.text).toBe(200);
    expect(past.data?.permit).toMatchObject({ number: '8000', status: 'expired', verification_url: null });
    const after = await client.GET('/api/v1/listings', { headers: { 'If-None-Match': etag as string } });
    expect(after.response.status).toBe(200);
    expect(after.data?.results[0]?.permit?.status).toBe('expired');
    const stored = await api.db
      .selectFrom('listing_renders')
      .select('card')
      .where('listing_id', '=', past.data?.id as string)
      .executeTakeFirstOrThrow();
    expect(stored.card).toContain('"status":"expired"');

    const removed = await advertising({ permit: null, portals: { bayut: false } });
    expect(removed.data).toMatchObject({ permit: null, portals: { propertyfinder: true, bayut: false } });
    expect((await client.GET('/api/v1/listings')).data?.results[0]?.permit).toBeNull();
  });

  it('refuses an agent of another company, an unknown agent name in an import, a bad permit, and an unknown listing', async () => {
    const company = await portalCompany(api, [portalListing('agent-checks')]);
    const other = await createCompany(api);
    const stranger = await portalsAdmin(api, other.id).addProfile({ name: 'Stranger', email: 's@example.com' });
    const patch = (slug: string, body: Record<string, unknown>) => portalsAdmin(api, company.id).advertising(slug, body);
    const refused = await patch('agent-checks', { agent_id: stranger.data?.id });
    expect(refused.status).toBe(400);
    expect(refused.error?.errors?.[0]?.path).toBe('agent_id');
    expect(
      (await patch('agent-checks', { permit: { number: 'no spaces', authority: 'dld', expires_on: '2027-01-01' } })).status,
    ).toBe(400);
    expect((await patch('agent-checks', { permit: { number: '1', authority: 'dld', expires_on: '2027-02-30' } })).status).toBe(
      400,
    );
    expect(
      (
        await patch('agent-checks', {
          permit: { number: '1', authority: 'dld', expires_on: '2027-01-01', verification_url: 'http://x.ae' },
        })
      ).status,
    ).toBe(400);
    expect((await patch('no-such-listing', { agent_id: null })).status).toBe(404);
    const own = await portalsAdmin(api, company.id).team();
    const sara = own.data?.results.find((p) => p.name === 'Sara Haddad');
    const set = await patch('agent-checks', { agent_id: sara?.id });
    expect(set.data?.agent_id).toBe(sara?.id);
    const unknown = await portalsAdmin(api, company.id).import({
      listings: [portalListing('agent-unknown', { city: null, area: null, project: null, agent: 'Nobody' })],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.error?.detail).toContain('Nobody');
  });
});

describe('scheduled work on permits', () => {
  it('records listing.permit_expiring once within the reminder days, then listing.permit_expired the day after, and the listing leaves the feed', async () => {
    const company = await portalCompany(api, [
      portalListing('expiring-soon', { permit: { number: '5555', authority: 'dld', expires_on: '2030-03-10' } }),
      portalListing('expiring-later', { permit: { number: '6666', authority: 'dld', expires_on: '2030-06-10' } }),
    ]);
    const at = (instant: string) => api.clock.set(new Date(instant));
    const run = () => runScheduledWork(api.platform.services());
    at('2030-02-20T08:00:00Z'); // 18 days before: outside the 14 days
    await run();
    expect(await events(company.id, 'listing.permit_expiring')).toHaveLength(0);
    at('2030-02-25T08:00:00Z'); // 13 days before (Dubai's day)
    await run();
    await run();
    const expiring = await events(company.id, 'listing.permit_expiring');
    expect(expiring).toHaveLength(1);
    const soonId = (
      await api.db
        .selectFrom('listings')
        .select('id')
        .where('company_id', '=', company.id)
        .where('slug_en', '=', 'expiring-soon')
        .executeTakeFirstOrThrow()
    ).id;
    expect(expiring[0]?.data).toEqual({ listing_id: soonId, permit_reference: '5555' });

    at('2030-03-10T19:59:00Z'); // 23:59 in Dubai on its last day: still valid
    await run();
    expect(await events(company.id, 'listing.permit_expired')).toHaveLength(0);
    const bayutFeed = async () => (await fetchFeed(api, company.host, company.feed.bayut)).text;
    const feedBefore = await bayutFeed();
    expect(validateFeed(feedBefore, 'bayut')).toHaveLength(2);
    const client = clientFor(company.host);
    const soon = { params: { path: { slug: 'expiring-soon' } } };
    const etag = (await client.GET('/api/v1/listings/{slug}', soon)).response.headers.get('etag');

    at('2030-03-10T20:00:00Z'); // midnight in Dubai: the next day
    // The feed leaves it out from the new day, before the scheduled work ran.
    expect(validateFeed(await bayutFeed(), 'bayut')).toHaveLength(1);
    await run();
    await run();
    const expired = await events(company.id, 'listing.permit_expired');
    expect(expired).toHaveLength(1);
    expect(expired[0]?.data).toEqual({ listing_id: soonId, permit_reference: '5555' });
    const detail = await client.GET('/api/v1/listings/{slug}', { ...soon, headers: { 'If-None-Match': etag as string } });
    expect(detail.response.status).toBe(200);
    expect(detail.data && 'permit' in detail.data ? detail.data.permit?.status : undefined).toBe('expired');
    const check = await portalsAdmin(api, company.id).check({});
    const checked = check.data?.results.find((r) => r.slug === 'expiring-soon');
    expect(checked?.portals.bayut.problems.map((p) => p.code)).toEqual(['permit_expired']);

    // A renewed permit is in the feed again and will be reminded again.
    await portalsAdmin(api, company.id).advertising('expiring-soon', {
      permit: { number: '5555', authority: 'dld', expires_on: '2030-03-20' },
    });
    expect(validateFeed(await bayutFeed(), 'bayut')).toHaveLength(2);
    await run();
    expect(await events(company.id, 'listing.permit_expiring')).toHaveLength(2);
    api.clock.set(null);
  });
});

describe('the admin command line', cliTimeout, () => {
  const cli = adminCli(() => api);
  it('lists and rotates the feed URLs, runs the check and sets a listing’s advertising', async () => {
    const company = await portalCompany(api, [portalListing('cli-one')]);
    const feeds = await cli('portals', 'feeds', company.id);
    expect(new URL(feeds.results[0].url).pathname).toBe(company.feed.propertyfinder);
    const rotated = await cli('portals', 'rotate', company.id);
    expect(new URL(rotated.results[0].url).pathname).not.toBe(company.feed.propertyfinder);
    const file = join(await mkdtemp(join(tmpdir(), 'pa-cli-')), 'advertising.json');
    await writeFile(file, JSON.stringify({ permit: null }));
    expect((await cli('advertising', 'set', company.id, 'cli-one', file)).permit).toBeNull();
    const check = await cli('portals', 'check', company.id, '--blocked');
    expect(check.results.map((r: { slug: string }) => r.slug)).toEqual(['cli-one']);
  });
});

import { describe, expect, it } from 'vitest';
import { xmlText } from '../../functions/portals/xml';
import { type Node, textAt, textsAt, validateFeed, validateFixture } from './formats';
import { fetchFeed as fetchFeedOn, idsBySlug as idsOn, portalCompany, portalListing, portalsAdmin, referenceOf } from './support';
import { createCompany, useApi } from '../support/world';

/**
 * The portal feeds as a portal fetches them (issue 25): parsed with fast-xml-parser and checked against the element
 * names and required fields of each portal's published format (the fixtures written from it).
 */

const api = useApi();

const fetchFeed = (host: string, path: string, headers: Record<string, string> = {}) => fetchFeedOn(api, host, path, headers);
const idsBySlug = (companyId: string) => idsOn(api, companyId);

describe('the fixtures', () => {
  it('pass the validation they define (the published formats’ names and required fields)', () => {
    expect(validateFixture('propertyfinder')).toHaveLength(3);
    expect(validateFixture('bayut')).toHaveLength(4);
  });
});

describe('the Property Finder and Bayut feeds', () => {
  it('give every listing the portal takes, in its format: prices with the portal’s period names, photos as absolute JPEG URLs, the agent', async () => {
    const company = await portalCompany(api, [
      portalListing('feed-sale'),
      portalListing('feed-lease', { listing_type: 'lease', price: '125000.00', price_period: 'year', property_type: 'villa' }),
      portalListing('feed-month', { listing_type: 'lease', price: '9500.50', price_period: 'month', property_type: 'office' }),
      portalListing('feed-home', {
        listing_type: 'holiday_home',
        price: '1450.00',
        price_period: 'night',
        max_guests: 4,
        permit: { number: 'DTCM-1234', authority: 'dtcm', expires_on: '2027-06-30' },
      }),
    ]);
    const ids = await idsBySlug(company.id);

    const pf = await fetchFeed(company.host, company.feed.propertyfinder);
    expect(pf.status, pf.text).toBe(200);
    expect(pf.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    const pfItems = validateFeed(pf.text, 'propertyfinder');
    expect(pf.text).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<list last_update="\d{4}-\d\d-\d\d \d\d:\d\d:\d\d" listing_count="4">/,
    );
    const pfBy = (slug: string) =>
      pfItems.find((i) => textAt(i, 'reference_number') === referenceOf(ids.get(slug) ?? '')) as Node;
    expect(textAt(pfBy('feed-sale'), 'offering_type')).toBe('RS');
    expect(textAt(pfBy('feed-sale'), 'property_type')).toBe('AP');
    expect(textAt(pfBy('feed-sale'), 'price')).toBe('2450000');
    expect(textAt(pfBy('feed-sale'), 'size')).toBe('1383'); // 128.5 m² in square feet
    expect(textAt(pfBy('feed-sale'), 'permit_number')).toMatch(/^\d+$/);
    expect(textAt(pfBy('feed-lease'), 'offering_type')).toBe('RR');
    expect(textAt(pfBy('feed-lease'), 'price/yearly')).toBe('125000');
    expect(textAt(pfBy('feed-month'), 'offering_type')).toBe('CR');
    expect(textAt(pfBy('feed-month'), 'price/monthly')).toBe('9500.50');
    expect(textAt(pfBy('feed-home'), 'price/daily')).toBe('1450');
    expect(textAt(pfBy('feed-home'), 'dtcm_permit')).toBe('DTCM-1234');
    expect(textAt(pfBy('feed-home'), 'permit_number')).toBe('');
    const photos = textsAt(pfBy('feed-sale'), 'photo/url');
    expect(photos).toHaveLength(3);
    for (const url of photos)
      expect(url).toMatch(new RegExp(`^https://media\\.property-api\\.dev/${company.id}/feed-sale/\\w+/w1600\\.jpg$`));
    expect(textAt(pfBy('feed-sale'), 'agent/name')).toBe('Sara Haddad');
    expect(textAt(pfBy('feed-sale'), 'agent/email')).toBe('sara@demo-properties.ae');
    expect(textAt(pfBy('feed-sale'), 'agent/phone')).toBe('971501234567');

    const bayut = await fetchFeed(company.host, company.feed.bayut);
    expect(bayut.status, bayut.text).toBe(200);
    const bayutItems = validateFeed(bayut.text, 'bayut');
    expect(bayutItems).toHaveLength(4);
    const bayutBy = (slug: string) =>
      bayutItems.find((i) => textAt(i, 'Property_Ref_No') === referenceOf(ids.get(slug) ?? '')) as Node;
    expect(textAt(bayutBy('feed-sale'), 'Property_purpose')).toBe('Buy');
    expect(textAt(bayutBy('feed-sale'), 'Rent_Frequency')).toBe('');
    expect(textAt(bayutBy('feed-lease'), 'Property_purpose')).toBe('Rent');
    expect(textAt(bayutBy('feed-lease'), 'Rent_Frequency')).toBe('Yearly');
    expect(textAt(bayutBy('feed-month'), 'Rent_Frequency')).toBe('Monthly');
    expect(textAt(bayutBy('feed-home'), 'Rent_Frequency')).toBe('Daily');
    expect(textAt(bayutBy('feed-home'), 'Permit_Number')).toBe('DTCM-1234');
    expect(textsAt(bayutBy('feed-sale'), 'Images/Image')).toEqual(photos);
    expect(textAt(bayutBy('feed-sale'), 'Listing_Agent_Phone')).toBe('+971501234567');
    expect(textsAt(bayutBy('feed-sale'), 'Portals/Portal')).toEqual(['Bayut', 'dubizzle']);
  });

  it('keeps Arabic, &, <, ]]>, quotes and emoji through a round trip, drops what XML forbids, and never writes a lone surrogate', async () => {
    const title = { en: 'Sea & <Sky> "Tower" 😀', ar: 'برج البحر & <السماء> 😀' };
    const tricky = `Views ]]> & <b>bold</b> \u0001 here. ${'ممتاز '.repeat(10)}😀 ${'x'.repeat(160)}`;
    const lone = `Half a pair: \ud83d then the rest of a long enough description ${'y'.repeat(200)}`;
    const company = await portalCompany(api, [
      portalListing('round-trip', { title, description: { en: tricky, ar: 'وصف & <عربي> 😀' } }),
    ]);
    // A lone surrogate never gets in (JSON can spell one, no database stores it): refused, nothing written.
    const refused = await portalsAdmin(api, company.id).import({
      listings: [portalListing('lone-surrogate', { description: { en: lone } })],
    });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json.errors[0].path).toBe('listings.0.description.en');
    // And the feed's own text cleaning would write U+FFFD for one.
    expect(xmlText(`a\ud83db\udc00c😀`)).toBe('a\ufffdb\ufffdc😀');
    const ids = await idsBySlug(company.id);
    for (const portal of ['propertyfinder', 'bayut'] as const) {
      const res = await fetchFeed(company.host, company.feed[portal]);
      expect(res.status).toBe(200);
      // The bytes are UTF-8 throughout (a lone surrogate would not encode): a strict decoder takes them.
      const bytes = new TextEncoder().encode(res.text);
      expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).not.toThrow();
      expect(res.text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
      const items = validateFeed(res.text, portal);
      const ref = portal === 'propertyfinder' ? 'reference_number' : 'Property_Ref_No';
      const item = items.find((i) => textAt(i, ref) === referenceOf(ids.get('round-trip') ?? '')) as Node;
      const field = (pf: string, by: string) => textAt(item, portal === 'propertyfinder' ? pf : by);
      expect(field('title_en', 'Property_Title')).toBe(title.en);
      expect(field('title_ar', 'Property_Title_AR')).toBe(title.ar);
      expect(field('description_en', 'Property_Description')).toBe(tricky.replace('\u0001', ''));
      expect(field('description_ar', 'Property_Description_AR')).toBe('وصف & <عربي> 😀');
      expect(ids.has('lone-surrogate')).toBe(false);
    }
  });

  it('answers a repeated fetch with its ETag 304, and another fetch once the catalogue or the day changed', async () => {
    const company = await portalCompany(api, [portalListing('etag-one')]);
    const first = await fetchFeed(company.host, company.feed.propertyfinder);
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(/^W\/"propertyfinder-/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const again = await fetchFeed(company.host, company.feed.propertyfinder, { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    await portalsAdmin(api, company.id).withdraw('etag-one');
    const changed = await fetchFeed(company.host, company.feed.propertyfinder, { 'If-None-Match': etag });
    expect(changed.status).toBe(200);
    expect(validateFeed(changed.text, 'propertyfinder')).toHaveLength(0);
    const tomorrow = new Date(Date.now() + 86_400_000);
    api.clock.set(tomorrow);
    try {
      const nextDay = await fetchFeed(company.host, company.feed.propertyfinder, {
        'If-None-Match': changed.headers.get('etag') as string,
      });
      expect(nextDay.status).toBe(200);
    } finally {
      api.clock.set(null);
    }
  });

  it('is 404 for any other token, on another company’s host, and for the old token once rotated', async () => {
    const company = await portalCompany(api, [portalListing('rotate-one')]);
    const other = await createCompany(api);
    expect((await fetchFeed(company.host, '/api/v1/feeds/pft_unknown/propertyfinder.xml')).status).toBe(404);
    expect((await fetchFeed(other.host, company.feed.propertyfinder)).status).toBe(404);
    expect((await fetchFeed(company.host, company.feed.bayut)).status).toBe(200);
    const listed = await portalsAdmin(api, company.id).feeds();
    expect(listed.data?.results.map((f) => new URL(f.url).pathname)).toEqual([company.feed.propertyfinder, company.feed.bayut]);
    expect(new URL(listed.json.results[0].url).origin).toBe(`https://${company.host}`);
    const rotated = await portalsAdmin(api, company.id).rotateFeeds();
    expect(rotated.status, rotated.text).toBe(200);
    const fresh = rotated.data?.results.map((f) => new URL(f.url).pathname) ?? [];
    expect(fresh).not.toContain(company.feed.propertyfinder);
    for (const old of [company.feed.propertyfinder, company.feed.bayut])
      expect((await fetchFeed(company.host, old)).status).toBe(404);
    for (const path of fresh) expect((await fetchFeed(company.host, path)).status).toBe(200);
    // The token is kept only hashed and encrypted.
    const row = await api.db
      .selectFrom('companies')
      .select(['portal_feed_token_jwe', 'portal_feed_token_hash'])
      .where('id', '=', company.id)
      .executeTakeFirstOrThrow();
    const token = fresh[0]?.split('/')[4] as string;
    expect(row.portal_feed_token_jwe).not.toContain(token);
    expect(Buffer.from(row.portal_feed_token_hash as Uint8Array).toString('latin1')).not.toContain(token);
  });

  it('leaves out a listing opted out of a portal, a draft, and one missing what the portal needs', async () => {
    const company = await portalCompany(api, [
      portalListing('opt-in'),
      portalListing('opt-out', { portals: { bayut: false } }),
      portalListing('draft-one', { status: 'draft' }),
      portalListing('two-photos', {
        photos: [
          { key: 'a/1', alt: { en: 'x' } },
          { key: 'a/2', alt: { en: 'y' } },
        ],
      }),
      portalListing('no-price', { price: null, price_period: null }),
      portalListing('no-agent', { agent: null }),
      portalListing('short-text', { description: { en: 'Too short.' } }),
    ]);
    const ids = await idsBySlug(company.id);
    const refs = async (portal: 'propertyfinder' | 'bayut') => {
      const items = validateFeed((await fetchFeed(company.host, company.feed[portal])).text, portal);
      return items.map((i) => textAt(i, portal === 'propertyfinder' ? 'reference_number' : 'Property_Ref_No'));
    };
    expect(await refs('propertyfinder')).toEqual(
      [ids.get('opt-in'), ids.get('opt-out')].map((id) => referenceOf(id as string)).sort(),
    );
    expect(await refs('bayut')).toEqual([referenceOf(ids.get('opt-in') as string)]);
  });
});

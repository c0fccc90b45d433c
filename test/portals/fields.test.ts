import { describe, expect, it } from 'vitest';
import { useApi } from '../support/world';
import { type Node, type Portal, textAt, textsAt, validateFeed } from './formats';
import { fetchFeed, idsBySlug, type PortalCompany, portalCompany, portalListing, portalsAdmin, referenceOf } from './support';

/**
 * What the feeds carry besides the catalogue's own fields (issue 32): no price while the company hides its prices
 * (Property Finder's `price_on_application` Yes), JPEG photos (at most 10 on Property Finder), the agent's licence
 * number, furnishing, cheques, service charge and Bayut's off-plan details, as each format names them.
 */

const api = useApi();

const referenceField = { propertyfinder: 'reference_number', bayut: 'Property_Ref_No' } as const;

/** A company's feed as the portal reads it, checked against the format, by listing slug. */
async function feedOf(company: PortalCompany, portal: Portal, pricesHidden = false) {
  const res = await fetchFeed(api, company.host, company.feed[portal]);
  expect(res.status, res.text).toBe(200);
  const items = validateFeed(res.text, portal, { pricesHidden });
  const ids = await idsBySlug(api, company.id);
  const bySlug = (slug: string) =>
    items.find((i) => textAt(i, referenceField[portal]) === referenceOf(ids.get(slug) ?? '')) as Node;
  return { xml: res.text, items, bySlug, etag: res.headers.get('etag') as string };
}

describe('a company that hides its prices', () => {
  it('sends no price to either portal, Property Finder’s price_on_application Yes; its prices return once shown', async () => {
    const company = await portalCompany(api, [
      portalListing('hidden-sale', { price: '2450000.00' }),
      portalListing('hidden-lease', { listing_type: 'lease', price: '125000.00', price_period: 'year', property_type: 'villa' }),
      portalListing('hidden-home', {
        listing_type: 'holiday_home',
        price: '1450.00',
        price_period: 'night',
        permit: { number: 'DTCM-4321', authority: 'dtcm', expires_on: '2027-06-30' },
      }),
    ]);
    const shown = await feedOf(company, 'propertyfinder');
    expect(textAt(shown.bySlug('hidden-sale'), 'price_on_application')).toBe('No');
    expect(textAt(shown.bySlug('hidden-sale'), 'price')).toBe('2450000');

    const patched = await portalsAdmin(api, company.id).settings({ hide_prices: true });
    expect(patched.status, patched.text).toBe(200);
    // The settings changed the catalogue's version: a fetch with the old ETag gets the new feed.
    const revalidated = await fetchFeed(api, company.host, company.feed.propertyfinder, { 'If-None-Match': shown.etag });
    expect(revalidated.status).toBe(200);
    for (const portal of ['propertyfinder', 'bayut'] as const) {
      const hidden = await feedOf(company, portal, true);
      expect(hidden.items).toHaveLength(3);
      // No amount anywhere in the document (an id or a URL may hold the digits, never as a number of its own).
      for (const amount of ['2450000', '125000', '1450'])
        expect(hidden.xml).not.toMatch(new RegExp(`(?<![\\w./-])${amount}(?![\\w./-])`));
      for (const slug of ['hidden-sale', 'hidden-lease', 'hidden-home']) {
        const item = hidden.bySlug(slug);
        if (portal === 'propertyfinder') {
          expect(textAt(item, 'price_on_application')).toBe('Yes');
          expect(item.price).toBeUndefined();
        } else {
          expect(item.Price).toBeUndefined();
          expect(item.Rent_Frequency).toBeUndefined();
          expect(textAt(item, 'Property_purpose')).toBe(slug === 'hidden-sale' ? 'Buy' : 'Rent');
        }
      }
    }

    await portalsAdmin(api, company.id).settings({ hide_prices: false });
    const again = await feedOf(company, 'bayut');
    expect(textAt(again.bySlug('hidden-lease'), 'Price')).toBe('125000');
    expect(textAt(again.bySlug('hidden-lease'), 'Rent_Frequency')).toBe('Yearly');
  });
});

describe('the fields the portals ask for', () => {
  it('sends furnishing, cheques, service charge, the agent’s licence number and the off-plan details as each format names them', async () => {
    const company = await portalCompany(api, [
      portalListing('fields-lease', {
        listing_type: 'lease',
        price: '98000.00',
        price_period: 'year',
        furnished: 'partly_furnished',
        cheques: 4,
        service_charge: '12500.50',
      }),
      portalListing('fields-new', {
        completion: 'off_plan',
        furnished: 'unfurnished',
        off_plan: { sale_type: 'new', dld_waiver: 50 },
      }),
      portalListing('fields-resale', {
        completion: 'off_plan',
        off_plan: { sale_type: 'resale', original_price: '2100000.00', amount_paid: '840000.00' },
      }),
      portalListing('fields-none', { agent: 'Layla Khoury' }),
    ]);
    const pf = await feedOf(company, 'propertyfinder');
    const lease = pf.bySlug('fields-lease');
    expect(textAt(lease, 'furnished')).toBe('Partly');
    expect(textAt(lease, 'cheques')).toBe('4');
    expect(textAt(lease, 'service_charge')).toBe('12500.50');
    // The agent's BRN, from the team profile (the demo's Sara Haddad has one; Layla Khoury none).
    expect(textAt(lease, 'agent/license_no')).toBe('41235');
    expect(textAt(pf.bySlug('fields-new'), 'furnished')).toBe('No');
    expect(textAt(pf.bySlug('fields-new'), 'completion_status')).toBe('off_plan');
    const bare = pf.bySlug('fields-none');
    for (const absent of ['furnished', 'cheques', 'service_charge']) expect(bare[absent]).toBeUndefined();
    expect((bare.agent as Node[])[0]?.license_no).toBeUndefined();

    const bayut = await feedOf(company, 'bayut');
    expect(textAt(bayut.bySlug('fields-lease'), 'Furnished')).toBe('Partly');
    expect(textAt(bayut.bySlug('fields-lease'), 'Off_plan')).toBe('No');
    const fresh = bayut.bySlug('fields-new');
    expect(textAt(fresh, 'Off_plan')).toBe('Yes');
    expect(textAt(fresh, 'offplanDetails_saleType')).toBe('New');
    expect(textAt(fresh, 'offplanDetails_dldWaiver')).toBe('50');
    const resale = bayut.bySlug('fields-resale');
    expect(textAt(resale, 'offplanDetails_saleType')).toBe('Resale');
    expect(textAt(resale, 'offplanDetails_originalPrice')).toBe('2100000');
    expect(textAt(resale, 'offplanDetails_amountPaid')).toBe('840000');
    expect(resale.offplanDetails_dldWaiver).toBeUndefined();

    // A licence number changed through the admin's team route reaches the feed (the team is part of its ETag).
    const team = await portalsAdmin(api, company.id).team();
    const layla = (team.json.results as Array<Record<string, unknown>>).find((p) => p.name === 'Layla Khoury');
    expect(layla?.licence_number).toBeNull();
    const { id: _id, company_id: _c, created_at: _t, ...profile } = layla as Record<string, unknown>;
    const put = await portalsAdmin(api, company.id).putProfile(layla?.id as string, { ...profile, licence_number: '77001' });
    expect(put.status, put.text).toBe(200);
    expect(put.json.licence_number).toBe('77001');
    const after = await feedOf(company, 'propertyfinder');
    expect(textAt(after.bySlug('fields-none'), 'agent/license_no')).toBe('77001');
  });

  it('sends JPEG photos, at most 10 to Property Finder and every one to Bayut', async () => {
    const photos = Array.from({ length: 12 }, (_, n) => ({ key: `many/photo-${n}`, alt: { en: `Room ${n}` } }));
    const company = await portalCompany(api, [portalListing('many-photos', { photos })]);
    const pf = (await feedOf(company, 'propertyfinder')).bySlug('many-photos');
    const urls = textsAt(pf, 'photo/url');
    expect(urls).toEqual(photos.slice(0, 10).map((p) => `https://media.property-api.dev/${company.id}/${p.key}/w1600.jpg`));
    const bayut = (await feedOf(company, 'bayut')).bySlug('many-photos');
    expect(textsAt(bayut, 'Images/Image')).toEqual(
      photos.map((p) => `https://media.property-api.dev/${company.id}/${p.key}/w1600.jpg`),
    );
  });

  it('refuses fields a listing cannot have, at their paths, and writes nothing', async () => {
    const company = await portalCompany(api, []);
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ cheques: 4 }, 'listings.0.cheques'],
      [{ listing_type: 'lease', price_period: 'year', cheques: 13 }, 'listings.0.cheques'],
      [{ off_plan: { sale_type: 'new', dld_waiver: 10 } }, 'listings.0.off_plan'],
      [{ completion: 'off_plan', off_plan: { sale_type: 'new' } }, 'listings.0.off_plan.dld_waiver'],
      [{ completion: 'off_plan', off_plan: { sale_type: 'new', dld_waiver: 101 } }, 'listings.0.off_plan.dld_waiver'],
      [
        { completion: 'off_plan', off_plan: { sale_type: 'resale', original_price: '100.00' } },
        'listings.0.off_plan.amount_paid',
      ],
      [
        { completion: 'off_plan', off_plan: { sale_type: 'resale', dld_waiver: 5, original_price: '1.00', amount_paid: '1.00' } },
        'listings.0.off_plan.dld_waiver',
      ],
      [{ furnished: 'yes' }, 'listings.0.furnished'],
      [{ service_charge: '12,500' }, 'listings.0.service_charge'],
    ];
    for (const [fields, path] of refusals) {
      const res = await portalsAdmin(api, company.id).import({ listings: [portalListing('refused', fields)] });
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.json.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    const team = await portalsAdmin(api, company.id).addProfile({ name: 'Too Long', licence_number: 'x'.repeat(65) });
    expect(team.status).toBe(400);
    expect(team.json.errors[0].path).toBe('licence_number');
    const written = await api.db.selectFrom('listings').select('id').where('company_id', '=', company.id).execute();
    expect(written).toEqual([]);
  });
});

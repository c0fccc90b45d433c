import { describe, expect, it } from 'vitest';
import type { TestApi } from '../support/harness';
import {
  enquiry,
  expectRefused,
  type FormCompany,
  formCompany,
  formsForFile,
  listingAnswers,
  postForm,
  postLead,
  readLead,
  uniqueEmail,
  type Verifier,
} from './support';
import { createCompany, createKey, importCatalogue } from '../support/world';

let api: TestApi;
let verifier: Verifier;
let company: FormCompany;
// The demo catalogue's `sell-my-property` is a service of kind listing_request.
formsForFile((file) => ({ api, verifier, company } = file), { leadTypes: ['enquiry', 'listing_request'] });

const request = (details: Record<string, unknown>, service = 'sell-my-property') => enquiry(verifier, { service, details });

const refused = async (details: Record<string, unknown>) => {
  const res = await expectRefused(api, company.id, 400, 'invalid_request', () => postForm(api, company, request(details)));
  return res.json.errors as Array<{ path: string; code: string; message: string }>;
};

describe('a listing request (service of kind listing_request)', () => {
  it('takes every answer valid, alongside ordinary answers, and shows them to staff', async () => {
    const details = { ...listingAnswers, views: ['sea', 'marina'] };
    const res = await postForm(api, company, request(details));
    expect(res.status, res.text).toBe(201);
    expect((await readLead(api, company, res.json.reference)).json.details).toEqual(details);
  });

  it('takes a studio (0 bedrooms), a city or a project as the area, and any subset of the answers', async () => {
    for (const details of [
      { purpose: 'holiday_home', bedrooms: 0, property_type: 'studio' },
      { purpose: 'lease', area: 'dubai', price: 95000.5, price_period: 'year' },
      { area: 'marina-gate' },
      { note: 'call me about it' },
    ]) {
      const res = await postForm(api, company, request(details));
      expect(res.status, `${JSON.stringify(details)}: ${res.text}`).toBe(201);
    }
  });

  it.each([
    ['purpose', 'rent'],
    ['purpose', ['sale']],
    ['bedrooms', -1],
    ['bedrooms', 2.5],
    ['bedrooms', '2'],
    ['bathrooms', 101],
    ['size_sqm', 0],
    ['size_sqm', '120'],
    ['price', -1],
    ['price', 'AED 1.5m'],
    ['price_period', 'week'],
    ['area', 3],
    ['property_type', true],
  ])('refuses %s = %j with invalid_value at details.<key>', async (key, value) => {
    expect(await refused({ [key]: value })).toEqual([
      { path: `details.${key}`, code: 'invalid_value', message: expect.any(String) },
    ]);
  });

  it("takes a price to the company's currency digits: 3 in KWD, 2 in AED (currency_digits beyond)", async () => {
    expect(await refused({ price: 1250.755, price_period: 'year' })).toEqual([
      { path: 'details.price', code: 'currency_digits', message: 'At most 2 digits after the point in AED.' },
    ]);
    const kuwait = await formCompany(api, verifier, { currency: 'KWD', leadTypes: ['listing_request'] });
    const taken = await postForm(api, kuwait, request({ purpose: 'lease', price: 1250.755, price_period: 'year' }));
    expect(taken.status, taken.text).toBe(201);
    expect((await readLead(api, kuwait, taken.json.reference)).json.details.price).toBe(1250.755);
    const fourth = await expectRefused(api, kuwait.id, 400, 'invalid_request', () =>
      postForm(api, kuwait, request({ price: 1250.7551 })),
    );
    expect(fourth.json.errors).toEqual([
      { path: 'details.price', code: 'currency_digits', message: 'At most 3 digits after the point in KWD.' },
    ]);
  });

  it('refuses an area or property type the company does not have with unknown_reference', async () => {
    // Another company's own area and property type are still unknown here.
    const other = await createCompany(api);
    await importCatalogue(api, other.id, {
      areas: [{ kind: 'city', slug: { en: 'atlantis' }, name: { en: 'Atlantis' }, parent: null }],
      property_types: [{ value: 'castle', name: { en: 'Castle' } }],
    });
    const errors = await refused({ area: 'atlantis', property_type: 'castle', purpose: 'sale' });
    expect(errors.map((e) => [e.path, e.code])).toEqual([
      ['details.area', 'unknown_reference'],
      ['details.property_type', 'unknown_reference'],
    ]);
  });

  it('names every wrong answer at once, one problem per key', async () => {
    const errors = await refused({ purpose: 'rent', bedrooms: -2, area: 'mira@example.com', price_period: 'week' });
    expect(errors.map((e) => [e.path, e.code]).sort()).toEqual([
      ['details.area', 'contact_details'],
      ['details.bedrooms', 'invalid_value'],
      ['details.price_period', 'invalid_value'],
      ['details.purpose', 'invalid_value'],
    ]);
  });

  it('applies to a server key posting the same request', async () => {
    const writer = await createKey(api, company.id, { scopes: ['write:leads'] });
    const body = { consent: true, consent_version: '2026-01', email: uniqueEmail(), service: 'sell-my-property' };
    const bad = await expectRefused(api, company.id, 400, 'invalid_request', () =>
      postLead(api, company.host, writer.secret, { ...body, details: { area: 'atlantis' } }),
    );
    expect(bad.json.errors[0]).toMatchObject({ path: 'details.area', code: 'unknown_reference' });
    const good = await postLead(api, company.host, writer.secret, {
      ...body,
      details: { area: 'downtown-dubai', purpose: 'lease' },
    });
    expect(good.status, good.text).toBe(201);
  });
});

describe('an ordinary enquiry', () => {
  it('does not check these keys: they are free answers there', async () => {
    const details = { purpose: 'rent', area: 'atlantis', bedrooms: 'two' };
    for (const service of [undefined, 'property-valuation', 'not-listed-yet']) {
      const res = await postForm(api, company, enquiry(verifier, { service, details }));
      expect(res.status, `${service}: ${res.text}`).toBe(201);
    }
  });
});

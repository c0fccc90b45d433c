import { beforeAll, describe, expect, it } from 'vitest';
import { draftTitle } from '../../functions/forms/draft-listing';
import { adminCli, cliTimeout } from '../support/admin-cli';
import { testClient } from '../support/client';
import type { TestApi } from '../support/harness';
import {
  answer,
  auditRows,
  enquiry,
  expectProblem,
  type FormCompany,
  formCompany,
  formsForFile,
  type Key,
  listingAnswers,
  postForm,
  postLead,
  readLead,
  uniqueEmail,
  type Verifier,
} from './support';
import { adminOf, createKey, importCatalogue } from '../support/world';

let api: TestApi;
let verifier: Verifier;
let company: FormCompany;
let writer: Key;
formsForFile((file) => ({ api, verifier, company } = file), { leadTypes: ['enquiry', 'listing_request'] });
beforeAll(async () => {
  writer = await createKey(api, company.id, { scopes: ['write:leads'] });
});

/** A lead posted by the company's server; `sell-my-property` is the demo catalogue's listing_request service. */
async function lead(details: Record<string, unknown>, service: string | null = 'sell-my-property', target = company) {
  const body = { consent: true, consent_version: '2026-01', email: uniqueEmail(), service: service ?? undefined, details };
  const key = target === company ? writer.secret : (await createKey(api, target.id, { scopes: ['write:leads'] })).secret;
  const res = await postLead(api, target.host, key, body);
  expect(res.status, res.text).toBe(201);
  return res.json.reference as string;
}

const draft = (reference: string, companyId = company.id) =>
  answer(
    adminOf(api).POST('/admin/v1/companies/{company_id}/leads/{reference}/draft-listing', {
      params: { path: { company_id: companyId, reference } },
    }),
  );

const listingsOf = (leadReference: string) =>
  api.db
    .selectFrom('listings')
    .innerJoin('leads', 'leads.id', 'listings.from_lead_id')
    .selectAll('listings')
    .where('leads.reference', '=', leadReference)
    .execute();

describe('POST /admin/v1/companies/{id}/leads/{reference}/draft-listing', () => {
  it("makes a draft listing from a browser's listing request, audited, not public until published", async () => {
    const details = listingAnswers;
    const posted = await postForm(api, company, enquiry(verifier, { service: 'sell-my-property', details }));
    expect(posted.status, posted.text).toBe(201);
    const reference = posted.json.reference as string;
    const leadBefore = await api.db
      .selectFrom('leads')
      .select('updated_at')
      .where('reference', '=', reference)
      .executeTakeFirstOrThrow();

    const res = await draft(reference);
    expect(res.status, res.text).toBe(201);
    expect(res.json).toEqual({
      lead: reference,
      id: expect.any(String),
      slug: `request-${reference.toLowerCase()}`,
      status: 'draft',
      listing_type: 'sale',
      title: { en: '2-bedroom apartment for sale in Dubai Marina', ar: 'شقة 2 غرف نوم للبيع في دبي مارينا' },
      city: 'dubai',
      area: 'dubai-marina',
      project: null,
      property_type: 'apartment',
      bedrooms: 2,
      bathrooms: 3,
      size_sqm: 120.5,
      price: '1850000.00',
      price_period: 'total',
      warnings: [],
    });
    const [row] = await listingsOf(reference);
    expect(row).toMatchObject({ id: res.json.id, status: 'draft', published_at: null });

    const audit = await auditRows(api, company.id, 'listing_request.drafted');
    expect(audit[0]).toMatchObject({
      actor: 'admin',
      subject: reference,
      details: { listing_id: res.json.id, slug: res.json.slug },
    });
    // The lead itself is not written: sync clients see no change.
    const leadAfter = await api.db
      .selectFrom('leads')
      .select('updated_at')
      .where('reference', '=', reference)
      .executeTakeFirstOrThrow();
    expect(leadAfter.updated_at).toEqual(leadBefore.updated_at);

    const slug = res.json.slug as string;
    const publicRead = () =>
      answer(testClient(api, { host: company.host }).GET('/api/v1/listings/{slug}', { params: { path: { slug } } }));
    expect((await publicRead()).status).toBe(404);
    const published = await answer(
      adminOf(api).POST('/admin/v1/companies/{company_id}/listings/{slug}/publish', {
        params: { path: { company_id: company.id, slug } },
      }),
    );
    expect(published.status, published.text).toBe(200);
    expect((await publicRead()).json.title.en).toBe('2-bedroom apartment for sale in Dubai Marina');
  });

  it("places a project under its area and the area's city", async () => {
    const res = await draft(await lead({ purpose: 'lease', area: 'marina-gate', bedrooms: 0, property_type: 'apartment' }));
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ listing_type: 'lease', city: 'dubai', area: 'dubai-marina', project: 'marina-gate' });
    expect(res.json.title.en).toBe('Studio apartment for rent in Marina Gate');
  });

  it('makes a draft once: a second request is 409, even when both arrive together', async () => {
    const reference = await lead({ purpose: 'holiday_home' });
    const both = await Promise.all([draft(reference), draft(reference)]);
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    expectProblem(both.find((r) => r.status === 409) as (typeof both)[number], 409, 'conflict');
    expectProblem(await draft(reference), 409, 'conflict');
    expect(await listingsOf(reference)).toHaveLength(1);
    // Deleting the draft lets staff make another.
    await api.db.deleteFrom('listings').where('slug_en', '=', `request-${reference.toLowerCase()}`).execute();
    expect((await draft(reference)).status).toBe(201);
  });

  it.each([
    ['an enquiry without a service', null],
    ['an enquiry for a service of another kind', 'property-valuation'],
    ['a service the list does not have', 'not-listed-yet'],
  ])('refuses %s with 409, making nothing', async (_name, service) => {
    const reference = await lead({ purpose: 'sale' }, service);
    const res = await draft(reference);
    expectProblem(res, 409, 'conflict');
    expect(res.json.detail).toMatch(/not a listing request/);
    expect(await listingsOf(reference)).toEqual([]);
  });

  it('refuses a request without a purpose with 409 saying so', async () => {
    for (const details of [{ bedrooms: 2 }, {}]) {
      const res = await draft(await lead(details));
      expectProblem(res, 409, 'conflict');
      expect(res.json.detail).toMatch(/purpose/);
    }
  });

  it('leaves out, with warnings, a price without its period and an area removed since', async () => {
    await importCatalogue(api, company.id, {
      areas: [{ kind: 'area', slug: { en: 'old-harbour' }, name: { en: 'Old Harbour' }, parent: 'dubai' }],
    });
    const reference = await lead({ purpose: 'sale', area: 'old-harbour', price: 900000, property_type: 'villa' });
    await api.db.deleteFrom('areas').where('company_id', '=', company.id).where('slug_en', '=', 'old-harbour').execute();
    const res = await draft(reference);
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ city: null, area: null, price: null, price_period: null, property_type: 'villa' });
    expect(res.json.title.en).toBe('Villa for sale');
    expect(res.json.warnings.map((w: { code: string }) => w.code).sort()).toEqual(['answer_not_used', 'price_incomplete']);
  });

  it("answers 404 for an unknown lead or another company's lead", async () => {
    expectProblem(await draft('L-0000000000'), 404, 'not_found');
    const other = await formCompany(api, verifier);
    const theirs = await lead({ purpose: 'sale' }, 'sell-my-property', other);
    expectProblem(await draft(theirs), 404, 'not_found');
    expect((await draft(theirs, other.id)).status).toBe(201);
  });

  it('refuses an erased lead with 409', async () => {
    const reference = await lead({ purpose: 'sale' });
    const person = await readLead(api, company, reference);
    await adminOf(api).POST('/admin/v1/companies/{company_id}/contacts/{reference}/erase', {
      params: { path: { company_id: company.id, reference: person.json.person } },
    });
    expectProblem(await draft(reference), 409, 'conflict');
  });

  it('is in the admin OpenAPI document', async () => {
    // raw: the admin OpenAPI document itself, which is not a path of its own
    const doc = (await api.request('/admin/v1/openapi.json')).json;
    expect(doc.paths['/admin/v1/companies/{company_id}/leads/{reference}/draft-listing'].post['x-access']).toEqual({
      kind: 'admin',
    });
  });
});

describe('draft titles', () => {
  const type = { en: 'Apartment', ar: 'شقة' };
  const marina = { en: 'Dubai Marina', ar: 'دبي مارينا' };
  it.each([
    [
      { purpose: 'sale', bedrooms: 3 },
      type,
      marina,
      '3-bedroom apartment for sale in Dubai Marina',
      'شقة 3 غرف نوم للبيع في دبي مارينا',
    ],
    [
      { purpose: 'lease', bedrooms: 0, property_type: 'studio' },
      { en: 'Studio', ar: 'استوديو' },
      undefined,
      'Studio for rent',
      'استوديو للإيجار',
    ],
    [
      { purpose: 'holiday_home' },
      undefined,
      marina,
      'Property for holiday rental in Dubai Marina',
      'عقار للإيجار السياحي في دبي مارينا',
    ],
  ] as const)('%j → %s', (answers, t, place, en, ar) => {
    expect(draftTitle(answers, t, place)).toEqual({ en, ar });
  });
});

describe('the admin CLI', cliTimeout, () => {
  const cli = adminCli(() => api);

  it('leads draft-listing <company> <reference>', async () => {
    const reference = await lead({ purpose: 'sale', area: 'downtown-dubai' });
    const made = await cli('leads', 'draft-listing', company.id, reference);
    expect(made).toMatchObject({ lead: reference, status: 'draft', listing_type: 'sale', area: 'downtown-dubai', city: 'dubai' });
  }, 60_000);
});

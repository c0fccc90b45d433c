import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portalCompany, portalListing } from '../portals/support';
import { type Ctx, book, day, newHome, setTerms, setup } from '../stay/support';
import { testClient } from '../support/client';
import { createTestApi, type TestApi } from '../support/harness';
import { adminOf, createCompany, world } from '../support/world';
import { ok, type StatementWorld, statementWorld, sum } from './support';

/**
 * Currencies with three decimals, end to end (issue 32 defect 12, issue 33 "Money"): a company in Kuwaiti dinars
 * (ISO 4217: KWD, 3 minor digits, the fils) keeps every fils from the request to the quote, the booking, the lease's
 * schedule and payments, the owner statement, the journal, a job charge and the portals' feeds; Bahraini and Omani
 * dinars (BHD, OMR: 3) on a deal and a job; Japanese yen (JPY: 0) on a lease. A fourth digit is 400 `currency_digits`.
 */

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi({
    env: {
      RATE_LIMIT_SERVER_KEY_PER_MINUTE: '1000000',
      RATE_LIMIT_PUBLISHABLE_KEY_PER_MINUTE: '100000',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
    },
  });
});
afterAll(async () => {
  api.clock.set(null);
  await api.close();
});

type Json = Record<string, any>;
const errorCodes = (res: { error?: unknown }) => (((res.error as Json)?.errors ?? []) as Json[]).map((e) => [e.path, e.code]);
/** GET /listings/{slug}/quote for two guests, without a key (as anyone asks). */
const quote = (ctx: Ctx, slug: string, checkIn: string, checkOut: string) =>
  testClient(api, { host: ctx.company.host }).GET('/api/v1/listings/{slug}/quote', {
    params: { path: { slug }, query: { check_in: checkIn, check_out: checkOut, guests: 2 } },
  });

describe('a stay in KWD', () => {
  it('quotes, books and shows every fils: 3 nights at 35.125, cleaning 5.250, tourism 0.125 a bedroom night', async () => {
    const ctx = await setup({ api, overrides: { currency: 'KWD' } });
    const home = await newHome(ctx, {
      price: '35.125',
      bedrooms: 2,
      terms: { cleaning_fee: '5.250', tourism_fee_per_bedroom_night: '0.125', deposit: '50.5' },
    });
    const asked = await quote(ctx, home, day(10), day(13));
    expect(asked.response.status, JSON.stringify(asked.error)).toBe(200);
    expect(asked.data).toMatchObject({
      currency: 'KWD',
      subtotal: '105.375',
      fees: [
        { code: 'cleaning', amount: '5.250' },
        { code: 'tourism_fee', amount: '0.750' },
      ],
      total: '111.375',
      deposit: '50.500',
    });
    expect(asked.data?.nights.map((n) => n.price)).toEqual(['35.125', '35.125', '35.125']);

    const booked = await book(ctx, home, day(10), day(13));
    expect(booked.quote).toMatchObject({ total: '111.375', deposit: '50.500', subtotal: '105.375' });
    const row = (
      await adminOf(api).GET('/admin/v1/companies/{company_id}/bookings/{reference}', {
        params: { path: { company_id: ctx.company.id, reference: booked.reference } },
      })
    ).data as Json;
    expect([row.total, row.deposit, row.currency]).toEqual(['111.375', '50.500', 'KWD']);
    // The guest's page: the total and what is due (total and deposit), with the fils.
    // raw: the guest's HTML page, a path the API document does not declare
    const page = await api.request(new URL(booked.stay_url).pathname, { host: ctx.company.host });
    expect(page.status).toBe(200);
    expect(page.text).toContain('111.375');
    expect(page.text).toContain('161.875');

    // Terms with a fourth digit are refused at their field, and change nothing.
    const refused = await adminOf(api).PUT('/admin/v1/companies/{company_id}/listings/{slug}/booking-terms', {
      params: { path: { company_id: ctx.company.id, slug: home } },
      body: { cleaning_fee: '5.2501', seasons: [{ starts_on: day(40), ends_on: day(50), nightly_price: '40.1234' }] } as never,
    });
    expect(refused.response.status, JSON.stringify(refused.error)).toBe(400);
    expect(errorCodes(refused)).toEqual([['cleaning_fee', 'currency_digits']]);
    await setTerms(ctx, home, {
      cleaning_fee: '5.250',
      seasons: [{ starts_on: day(40), ends_on: day(50), nightly_price: '40.125' }],
    });
    expect((await quote(ctx, home, day(40), day(41))).data?.nights[0]?.price).toBe('40.125');
  });
});

describe('leases, statements and the journal in KWD', () => {
  let w: StatementWorld;
  let owner: string;
  let lease: { reference: string; payments: string[] };

  beforeAll(async () => {
    w = await statementWorld({ api, company: { currency: 'KWD' } });
    owner = await w.person('Dinar Owner');
    w.on('2027-01-05');
    // 12000.125 a year in 12 payments: 1000.010 each, the first carrying the other 0.005.
    lease = await w.lease(owner, 'marina-gate-1br-furnished', { rent: { amount: '12000.125', period: 'year' } });
  });

  it('splits the rent into payments of fils that add up to it exactly', async () => {
    const shown = (await w.client.GET('/api/v1/leases/{reference}', { params: { path: { reference: lease.reference } } }))
      .data as Json;
    expect(shown.rent).toEqual({ amount: '12000.125', period: 'year', term_total: '12000.125' });
    const amounts = shown.schedule.rows.map((r: Json) => r.amount);
    expect(amounts).toEqual(['1000.015', ...Array(11).fill('1000.010')]);
    expect(sum(amounts).toFixed(3)).toBe('12000.125');
  });

  it('takes a payment of 3 decimals, refuses a fourth (400 currency_digits), and books its 5% fee rounded half up', async () => {
    const first = lease.payments[0] as string;
    const refused = await w.changePayment(first, { amount: '1000.0155' });
    expect(refused.response.status, JSON.stringify(refused.error)).toBe(400);
    expect(errorCodes(refused)).toEqual([['amount', 'currency_digits']]);
    expect((await ok('PATCH', w.changePayment(first, { amount: '1000.017' }))).amount).toBe('1000.017');
    w.on('2027-02-03');
    const received = await w.receive(first);
    // 5% of 1000.017 is 50.00085: half up to the fils, 50.001.
    expect([received.amount, received.fee_amount]).toEqual(['1000.017', '50.001']);
    w.on('2027-02-10');
    const job = await w.job('marina-gate-1br-furnished');
    const refusedCharge = await w.postCharge({ job, cost: '45.1255', payer: 'owner' });
    expect(refusedCharge.response.status, JSON.stringify(refusedCharge.error)).toBe(400);
    expect(errorCodes(refusedCharge)).toEqual([['cost', 'currency_digits']]);
    await w.charge(job, '45.125');
    w.on('2027-03-20');
  });

  it('shows the owner’s statement and its totals to the fils, the net adding up exactly', async () => {
    const statement = (await w.statement(owner, '2027-02')) as Json;
    expect(statement.lines.map((l: Json) => [l.kind, l.amount, l.currency])).toEqual([
      ['rent_received', '1000.017', 'KWD'],
      ['fee', '-50.001', 'KWD'],
      ['job_charge', '-45.125', 'KWD'],
    ]);
    expect(statement.totals).toEqual([
      expect.objectContaining({
        currency: 'KWD',
        rent_received: '1000.017',
        fees: '50.001',
        job_charges: '45.125',
        net: '904.891',
      }),
    ]);
    expect(sum(statement.lines.map((l: Json) => l.amount)).toFixed(3)).toBe('904.891');
  });

  it('posts balanced journal entries in fils', async () => {
    const journal = await w.journal('2027-02');
    const lines = journal.entries.flatMap((e: Json) => e.lines) as Json[];
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line.debit, JSON.stringify(line)).toMatch(/^\d+\.\d{3}$/);
      expect(line.credit, JSON.stringify(line)).toMatch(/^\d+\.\d{3}$/);
    }
    for (const entry of journal.entries as Json[]) {
      const debits = sum(entry.lines.map((l: Json) => l.debit));
      expect(debits.eq(sum(entry.lines.map((l: Json) => l.credit))), JSON.stringify(entry)).toBe(true);
    }
    const rent = (journal.entries as Json[]).find((e) => e.kind === 'rent_received');
    expect(rent?.lines.map((l: Json) => [l.debit, l.credit])).toContainEqual(['1000.017', '0.000']);
    expect(sum(lines.map((l) => l.debit)).toFixed(3)).toBe(sum(lines.map((l) => l.credit)).toFixed(3));
  });

  it('refuses a lease whose rent has a fourth decimal, and keeps nothing', async () => {
    const count = async () => (await w.client.GET('/api/v1/leases')).data?.results.length;
    const before = await count();
    const refused = await w.postLease({
      home: 'al-reem-3br-sea-view',
      renter: w.renter,
      landlord: owner,
      term: { start: '2027-01-01', end: '2027-12-31' },
      rent: { amount: '12000.1255', period: 'year' },
      schedule: { payments: 4 },
    });
    expect(refused.response.status, JSON.stringify(refused.error)).toBe(400);
    expect(errorCodes(refused)).toEqual([['rent.amount', 'currency_digits']]);
    expect(await count()).toBe(before);
  });
});

describe('the portals’ feeds in KWD', () => {
  it('send the price and service charge with their fils (no all-zero fraction)', async () => {
    const company = await portalCompany(
      api,
      [
        portalListing('dinar-sale', { price: '245000.125' }),
        portalListing('dinar-lease', {
          listing_type: 'lease',
          price: '4800.5',
          price_period: 'year',
          service_charge: '120.250',
          property_type: 'villa',
        }),
      ],
      {},
      { currency: 'KWD' },
    );
    const anyone = testClient(api, { host: company.host });
    // The feeds' paths are /api/v1/feeds/{token}/<portal>.xml; their XML read as text.
    const token = (path: string) => ({ path: { token: path.split('/')[4] as string } });
    const pf = await anyone.GET('/api/v1/feeds/{token}/propertyfinder.xml', {
      params: token(company.feed.propertyfinder),
      parseAs: 'text',
    });
    const pfText = String(pf.data ?? pf.error);
    expect(pf.response.status, pfText).toBe(200);
    expect(pfText).toContain('245000.125');
    expect(pfText).toContain('4800.500');
    expect(pfText).toContain('120.250');
    const bayut = await anyone.GET('/api/v1/feeds/{token}/bayut.xml', { params: token(company.feed.bayut), parseAs: 'text' });
    const bayutText = String(bayut.data ?? bayut.error);
    expect(bayut.response.status, bayutText).toBe(200);
    expect(bayutText).toContain('245000.125');
    // The catalogue shows the same amounts.
    const listing = await anyone.GET('/api/v1/listings/{slug}', { params: { path: { slug: 'dinar-sale' } } });
    expect((listing.data as Json | undefined)?.price).toEqual({ amount: '245000.125', currency: 'KWD', period: 'total' });
  });

  it('refuses a catalogue price with a fourth decimal at its field, importing nothing', async () => {
    const company = await createCompany(api, { currency: 'KWD' });
    const res = await adminOf(api).POST('/admin/v1/companies/{company_id}/catalogue/import', {
      params: { path: { company_id: company.id } },
      body: { listings: [portalListing('too-fine', { price: '1.1234', permit: null, agent: null })] } as never,
    });
    expect(res.response.status, JSON.stringify(res.error)).toBe(400);
    expect(errorCodes(res)).toEqual([['listings.0.price', 'currency_digits']]);
    expect(await api.db.selectFrom('listings').select('id').where('company_id', '=', company.id).execute()).toEqual([]);
  });
});

describe('other currencies', () => {
  it('keeps BHD deals and OMR jobs to 3 digits, refusing a fourth', async () => {
    const bahrain = await world({ api, company: { currency: 'BHD' } });
    await bahrain.pipelines();
    const deal = await bahrain.deal({ value: '1500.125', commission: '30.005' });
    expect([deal.value, deal.money]).toEqual(['1500.125', { currency: 'BHD', commission: '30.005' }]);
    const refused = await bahrain.client.POST('/api/v1/deals', {
      body: { person: bahrain.contacts.renter, title: 'Too fine', value: '1500.1255' },
    });
    expect(refused.response.status, JSON.stringify(refused.error)).toBe(400);
    expect(errorCodes(refused)).toEqual([['value', 'currency_digits']]);

    const oman = await world({ api, company: { currency: 'OMR' } });
    const job = await oman.job({ estimate: '75.125' });
    expect(job.estimate).toBe('75.125');
    const charge = await oman.client.POST('/api/v1/job-charges', {
      body: { job: job.reference, cost: '75.125', payer: 'company' } as never,
    });
    expect(charge.response.status, JSON.stringify(charge.error)).toBe(201);
    expect(charge.data?.cost).toBe('75.125');
  });

  it('keeps JPY to whole yen: a lease split without fractions, a yen fraction refused', async () => {
    const japan = await statementWorld({ api, company: { currency: 'JPY' } });
    const landlord = await japan.person('Yen Owner');
    const lease = await ok(
      'POST /leases',
      japan.postLease({
        home: 'marina-gate-1br-furnished',
        renter: japan.renter,
        landlord,
        term: { start: '2027-01-01', end: '2027-12-31' },
        rent: { amount: '1200000', period: 'year' },
        schedule: { payments: 7 },
      }),
    );
    const amounts = lease.schedule.rows.map((r) => r.amount);
    expect(amounts).toEqual(['171432', ...Array(6).fill('171428')]);
    expect(sum(amounts).toString()).toBe('1200000');
    const refused = await japan.changePayment(lease.schedule.rows[0]?.payment_id as string, { amount: '171432.5' });
    expect(errorCodes(refused)).toEqual([['amount', 'currency_digits']]);
  });

  it('creates no company in a code that is not a currency (ISO 4217 as Intl lists it)', async () => {
    const res = await adminOf(api).POST('/admin/v1/companies', {
      body: { name: 'Typo', hosts: ['typo.test'], environment: 'production', currency: 'ADE', time_zone: 'Asia/Dubai' } as never,
    });
    expect(res.response.status, JSON.stringify(res.error)).toBe(400);
    expect(errorCodes(res)).toEqual([['currency', 'unknown_currency']]);
  });
});

import { describe, expect, it } from 'vitest';
import { createKey, leasesOf, useWorld } from '../support/world';

const w = useWorld();
const l = leasesOf(w);

describe('POST /leases', () => {
  it('adds a draft (201) with its schedule split exactly, warnings, and lease.created', async () => {
    const handler = w.members.lina;
    const res = await l.post({ rent: { amount: '120000', period: 'year' }, schedule: { payments: 7 }, handler });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    const lease = res.data!;
    expect(lease.reference).toMatch(/^T-[0-9A-HJKMNP-TV-Z]{10}$/);
    expect(lease).toMatchObject({
      home: 'marina-gate-1br-furnished',
      renter: w.contacts.renter,
      landlord: w.contacts.landlord,
      status: 'draft',
      term: { start: '2027-01-01', end: '2027-12-31' },
      rent: { amount: '120000.00', period: 'year', term_total: '120000.00' },
      deposit: { amount: '6000.00', outcome: null, deductions: null, reason: null },
      notice: { period_days: 90, given: [] },
      renewal: { terms: null, renews: null, renewed_by: null },
      fee: null,
      handler,
      warnings: [],
      activated_at: null,
      ended_on: null,
    });
    expect(lease.schedule.payments).toBe(7);
    expect(lease.schedule.rows.map((r) => r.amount)).toEqual(['17142.90', ...Array(6).fill('17142.85')]);
    expect(lease.schedule.rows.every((r) => r.status === 'due')).toBe(true);
    const stored = await w.api.db.selectFrom('rent_payments').select('id').where('company_id', '=', w.company.id).execute();
    expect(stored.map((p) => p.id)).toEqual(expect.arrayContaining(l.paymentIds(lease)));
    expect(await w.eventsOf(lease.reference)).toEqual(['lease.created']);
  });

  it('keeps post-dated cheque rows as given and warns when they do not sum to the term’s rent', async () => {
    const rows = [
      { due_on: '2026-12-20', amount: '60000', cheque: { number: '000101', bank: 'Emirates NBD' } },
      { due_on: '2027-07-01', amount: '59000', cheque: { number: '000102', bank: 'Emirates NBD' } },
    ];
    const res = await l.post({ schedule: { rows } });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data?.schedule.payments).toBeNull();
    expect(res.data?.schedule.rows.map((r) => [r.due_on, r.amount, r.cheque])).toEqual([
      ['2026-12-20', '60000.00', { number: '000101', bank: 'Emirates NBD' }],
      ['2027-07-01', '59000.00', { number: '000102', bank: 'Emirates NBD' }],
    ]);
    expect(res.data?.warnings.map((x) => x.code)).toEqual(['schedule_total_differs']);
  });

  it('warns deposit_above_default with the company’s default 5 percent of a year’s rent', async () => {
    const res = await l.post({ deposit: '6000.01' });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data?.warnings.map((x) => x.code)).toEqual(['deposit_above_default']);
  });

  it('warns not_a_lease_listing on a home the company does not offer for lease, and drops it when the home is one', async () => {
    // A company rule, so a warning (spec: business rules warn, never refuse): the lease is written all the same.
    const res = await l.post({ home: 'marina-gate-2br-sea-view' });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    const reference = res.data?.reference ?? '';
    expect(res.data?.home).toBe('marina-gate-2br-sea-view');
    expect(res.data?.warnings).toEqual([
      { code: 'not_a_lease_listing', message: 'The home marina-gate-2br-sea-view is offered for sale, not for lease.' },
    ]);
    const leased = await l.patch(reference, { home: 'burj-vista-2br-fountain-view' });
    expect(leased.response.status, JSON.stringify(leased.error)).toBe(200);
    expect(leased.data?.warnings).toEqual([]);
    const holiday = await l.patch(reference, { home: 'palm-5br-villa-private-beach-holiday' });
    expect(holiday.data?.warnings.map((x) => x.code)).toEqual(['not_a_lease_listing']);
    expect((await l.get(reference)).data?.warnings).toEqual(holiday.data?.warnings);
  });

  it('refuses unknown parties and amounts the currency cannot keep (400)', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ renter: 'P-0000000000' }, 'renter', 'unknown_reference'],
      [{ landlord: 'P-0000000000' }, 'landlord', 'unknown_reference'],
      [{ home: 'no-such-home' }, 'home', 'unknown_reference'],
      [{ handler: 'mem_nobody' }, 'handler', 'unknown_reference'],
    ];
    for (const [override, path, code] of cases) {
      const res = await l.post(override);
      expect(res.response.status).toBe(400);
      expect(res.error?.errors).toEqual([expect.objectContaining({ path, code })]);
    }
    expect(
      await w.api.db
        .selectFrom('leases')
        .select('id')
        .where('company_id', '=', w.company.id)
        .where('rent_amount', '=', '1')
        .execute(),
    ).toEqual([]);
  });

  it('answers the first lease (200) for the same external id, writing nothing more', async () => {
    const external = { source: 'yardi', id: `L-${w.unique()}` };
    const first = await l.post({ external });
    expect(first.response.status, JSON.stringify(first.error)).toBe(201);
    expect(first.data?.external).toEqual([external]);
    const again = await l.post({ external, deposit: '1' });
    expect(again.response.status, JSON.stringify(again.error)).toBe(200);
    expect(again.data?.reference).toBe(first.data?.reference);
    expect(again.data?.deposit.amount).toBe('6000.00');
    expect(await w.eventsOf(first.data?.reference ?? '')).toEqual(['lease.created']);
  });
});

describe('GET /leases and /leases/{reference}', () => {
  it('reads one lease with its ETag, 404 for an unknown one, and audits the read', async () => {
    const created = await l.draft();
    const res = await l.get(created.reference);
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data).toEqual(created);
    expect(res.response.headers.get('ETag')).toBe('"v1"');
    expect((await l.get('T-0000000000')).response.status).toBe(404);
    const audit = await w.api.db.selectFrom('audit_log').selectAll().where('company_id', '=', w.company.id).execute();
    expect(JSON.stringify(audit)).toContain(created.reference);
  });

  it('lists by external id, status and home, in sync pages', async () => {
    const external = { source: 'sheet', id: `row-${w.unique()}` };
    const mine = await l.draft({ external, home: 'jvc-studio-unfurnished' });
    const list = (query: Record<string, string | number>) => w.client.GET('/api/v1/leases', { params: { query } });
    const references = (page: { data?: { results: Array<{ reference: string }> } }) => page.data?.results.map((r) => r.reference);
    const byExternal = await list({ external: `sheet:${external.id}` });
    expect(byExternal.response.status, JSON.stringify(byExternal.error)).toBe(200);
    expect(references(byExternal)).toEqual([mine.reference]);
    expect(references(await list({ home: 'jvc-studio-unfurnished', status: 'draft' }))).toEqual([mine.reference]);
    expect(references(await list({ home: 'jvc-studio-unfurnished', status: 'active' }))).toEqual([]);
    const all: string[] = [];
    let cursor: string | null | undefined = null;
    do {
      const page: Awaited<ReturnType<typeof list>> = await list(cursor ? { page_size: 2, cursor } : { page_size: 2 });
      all.push(...(references(page) ?? []));
      cursor = page.data?.next_cursor;
    } while (cursor);
    const count = await w.api.db.selectFrom('leases').select('id').where('company_id', '=', w.company.id).execute();
    expect(new Set(all).size).toBe(count.length);
    expect(all).toContain(mine.reference);
  });

  it('refuses a publishable key and a key without the scope', async () => {
    const other = await createKey(w.api, w.company.id, { scopes: ['read:contacts'] });
    const res = await (await w.clientWith(other.secret)).GET('/api/v1/leases');
    expect(res.response.status).toBe(403);
    const reader = await w.keyWith(['read:leases']);
    const written = await (await w.clientWith(reader.secret)).POST('/api/v1/leases', { body: l.body() as never });
    expect(written.response.status).toBe(403);
  });
});

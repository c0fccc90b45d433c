import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseWorld } from './http';

let w: Awaited<ReturnType<typeof leaseWorld>>;
beforeAll(async () => {
  w = await leaseWorld();
});
afterAll(() => w.api.close());

describe('POST /leases', () => {
  it('adds a draft (201) with its schedule split exactly, warnings, and lease.created', async () => {
    const res = await w.post(
      w.body({ rent: { amount: '120000', period: 'year' }, schedule: { payments: 7 }, handler: w.handler }),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.json.reference).toMatch(/^T-[0-9A-HJKMNP-TV-Z]{10}$/);
    expect(res.json).toMatchObject({
      home: 'marina-gate-1br-furnished',
      renter: w.renter,
      landlord: w.landlord,
      status: 'draft',
      term: { start: '2027-01-01', end: '2027-12-31' },
      rent: { amount: '120000.00', period: 'year', term_total: '120000.00' },
      deposit: { amount: '6000.00', outcome: null, deductions: null, reason: null },
      notice: { period_days: 90, given: [] },
      renewal: { terms: null, renews: null, renewed_by: null },
      fee: null,
      handler: w.handler,
      warnings: [],
      activated_at: null,
      ended_on: null,
    });
    expect(res.json.schedule.payments).toBe(7);
    expect(res.json.schedule.rows.map((r: { amount: string }) => r.amount)).toEqual(['17142.90', ...Array(6).fill('17142.85')]);
    expect(res.json.schedule.rows.every((r: { status: string }) => r.status === 'due')).toBe(true);
    const stored = await w.api.db.selectFrom('rent_payments').select('id').where('company_id', '=', w.company.id).execute();
    expect(stored.map((p) => p.id)).toEqual(
      expect.arrayContaining(res.json.schedule.rows.map((r: { payment_id: string }) => r.payment_id)),
    );
    expect(await w.eventsOf(res.json.reference)).toEqual(['lease.created']);
  });

  it('keeps post-dated cheque rows as given and warns when they do not sum to the term’s rent', async () => {
    const rows = [
      { due_on: '2026-12-20', amount: '60000', cheque: { number: '000101', bank: 'Emirates NBD' } },
      { due_on: '2027-07-01', amount: '59000', cheque: { number: '000102', bank: 'Emirates NBD' } },
    ];
    const res = await w.post(w.body({ schedule: { rows } }));
    expect(res.status, res.text).toBe(201);
    expect(res.json.schedule.payments).toBeNull();
    expect(res.json.schedule.rows.map((r: Record<string, unknown>) => [r.due_on, r.amount, r.cheque])).toEqual([
      ['2026-12-20', '60000.00', { number: '000101', bank: 'Emirates NBD' }],
      ['2027-07-01', '59000.00', { number: '000102', bank: 'Emirates NBD' }],
    ]);
    expect(res.json.warnings.map((x: { code: string }) => x.code)).toEqual(['schedule_total_differs']);
  });

  it('warns deposit_above_default with the company’s default 5 percent of a year’s rent', async () => {
    const res = await w.post(w.body({ deposit: '6000.01' }));
    expect(res.status, res.text).toBe(201);
    expect(res.json.warnings.map((x: { code: string }) => x.code)).toEqual(['deposit_above_default']);
  });

  it('warns not_a_lease_listing on a home the company does not offer for lease, and drops it when the home is one', async () => {
    // A company rule, so a warning (spec: business rules warn, never refuse): the lease is written all the same.
    const res = await w.post(w.body({ home: 'marina-gate-2br-sea-view' }));
    expect(res.status, res.text).toBe(201);
    expect(res.json.home).toBe('marina-gate-2br-sea-view');
    expect(res.json.warnings).toEqual([
      { code: 'not_a_lease_listing', message: 'The home marina-gate-2br-sea-view is offered for sale, not for lease.' },
    ]);
    const leased = await w.write(`/leases/${res.json.reference}`, { home: 'burj-vista-2br-fountain-view' }, {}, 'PATCH');
    expect(leased.status, leased.text).toBe(200);
    expect(leased.json.warnings).toEqual([]);
    const holiday = await w.write(`/leases/${res.json.reference}`, { home: 'palm-5br-villa-private-beach-holiday' }, {}, 'PATCH');
    expect(holiday.json.warnings.map((x: { code: string }) => x.code)).toEqual(['not_a_lease_listing']);
    expect((await w.get(`/leases/${res.json.reference}`)).json.warnings).toEqual(holiday.json.warnings);
  });

  it('refuses unknown parties and amounts the currency cannot keep (400)', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ renter: 'P-0000000000' }, 'renter', 'unknown_reference'],
      [{ landlord: 'P-0000000000' }, 'landlord', 'unknown_reference'],
      [{ home: 'no-such-home' }, 'home', 'unknown_reference'],
      [{ handler: 'mem_nobody' }, 'handler', 'unknown_reference'],
    ];
    for (const [override, path, code] of cases) {
      const res = await w.post(w.body(override));
      expect(res.status, res.text).toBe(400);
      expect(res.json.errors).toEqual([expect.objectContaining({ path, code })]);
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
    const first = await w.post(w.body({ external }));
    expect(first.status, first.text).toBe(201);
    expect(first.json.external).toEqual([external]);
    const again = await w.post(w.body({ external, deposit: '1' }));
    expect(again.status, again.text).toBe(200);
    expect(again.json.reference).toBe(first.json.reference);
    expect(again.json.deposit.amount).toBe('6000.00');
    expect(await w.eventsOf(first.json.reference)).toEqual(['lease.created']);
  });
});

describe('GET /leases and /leases/{reference}', () => {
  it('reads one lease with its ETag, 404 for an unknown one, and audits the read', async () => {
    const created = (await w.post(w.body())).json;
    const res = await w.get(`/leases/${created.reference}`);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual(created);
    expect(res.headers.get('ETag')).toBe('"v1"');
    expect((await w.get('/leases/T-0000000000')).status).toBe(404);
    const audit = await w.api.db.selectFrom('audit_log').selectAll().where('company_id', '=', w.company.id).execute();
    expect(JSON.stringify(audit)).toContain(created.reference);
  });

  it('lists by external id, status and home, in sync pages', async () => {
    const external = { source: 'sheet', id: `row-${w.unique()}` };
    const mine = (await w.post(w.body({ external, home: 'jvc-studio-unfurnished' }))).json;
    const byExternal = await w.get(`/leases?external=sheet:${external.id}`);
    expect(byExternal.status, byExternal.text).toBe(200);
    expect(byExternal.json.results.map((l: { reference: string }) => l.reference)).toEqual([mine.reference]);
    const byHome = await w.get('/leases?home=jvc-studio-unfurnished&status=draft');
    expect(byHome.json.results.map((l: { reference: string }) => l.reference)).toEqual([mine.reference]);
    expect((await w.get('/leases?home=jvc-studio-unfurnished&status=active')).json.results).toEqual([]);
    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { json: { results: Array<{ reference: string }>; next_cursor: string | null } } = await w.get(
        `/leases?page_size=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      all.push(...page.json.results.map((l) => l.reference));
      cursor = page.json.next_cursor;
    } while (cursor);
    const count = await w.api.db.selectFrom('leases').select('id').where('company_id', '=', w.company.id).execute();
    expect(new Set(all).size).toBe(count.length);
    expect(all).toContain(mine.reference);
  });

  it('refuses a publishable key and a key without the scope', async () => {
    const other = await w.api.createKey(w.company.id, { scopes: ['read:contacts'] });
    const res = await w.api.request('/api/v1/leases', { host: w.company.host, key: other.secret });
    expect(res.status).toBe(403);
    expect((await w.api.request('/api/v1/leases', { host: w.company.host, key: w.reader.secret, body: w.body() })).status).toBe(
      403,
    );
  });
});

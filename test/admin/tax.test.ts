import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isExclusionViolation } from '../../lib/db/index';
import { adminCli, cliTimeout } from '../support/admin-cli';
import type { AdminBody } from '../support/client';
import { createTestApi, openTestDatabase, type TestApi, tripLog } from '../support/harness';
import { adminOf, createCompany } from '../support/world';

/**
 * Tax, first slice (issue 35; docs/api-reference.md, "Tax"): the company's tax settings and the operator's dated rate
 * table, through the typed admin client. The rate table is the platform's, one for every company: the file has a
 * database of its own (on the PostgreSQL pass too), and puts the table back as the migration seeds it before each test.
 * Its statements are counted (the write budgets of issue 28: these two routes are counted here, `countedApart` in
 * test/platform/query-count.test.ts).
 */
let trips: string[] | undefined;
const api = {} as TestApi;
beforeAll(async () => {
  // The file's own database (a PGlite copy, or a database of its own on the PostgreSQL server), its statements counted.
  Object.assign(api, await createTestApi({ handle: await openTestDatabase({ own: true, log: tripLog(() => trips) }) }));
});
afterAll(() => api.close?.());

/** The statements a call sends (the operator token's check left out, as the write budgets count it), and its answer. */
async function counted<T>(call: () => Promise<T>): Promise<{ sent: number; answer: T }> {
  trips = [];
  const answer = await call();
  const sent = trips.filter((text) => !text.includes('"admin_tokens"')).length;
  trips = undefined;
  return { sent, answer };
}
const admin = () => adminOf(api);
const companyPath = (company_id: string) => ({ params: { path: { company_id } } });
const patchCompany = (company_id: string, body: Record<string, unknown>) =>
  admin().PATCH('/admin/v1/companies/{company_id}', { ...companyPath(company_id), body: body as never });
const readCompany = (company_id: string) => admin().GET('/admin/v1/companies/{company_id}', companyPath(company_id));
const rates = () => admin().GET('/admin/v1/tax-rates');
const addRate = (body: Record<string, unknown>) =>
  admin().POST('/admin/v1/tax-rates', { body: body as AdminBody<'createTaxRate'> });
const deleteRate = (rate_id: string) => admin().DELETE('/admin/v1/tax-rates/{rate_id}', { params: { path: { rate_id } } });
const closeRate = (rate_id: string, body: Record<string, unknown>) =>
  admin().PATCH('/admin/v1/tax-rates/{rate_id}', { params: { path: { rate_id } }, body: body as AdminBody<'closeTaxRate'> });

/** The rate table as migration 0043 seeds it: the UAE's standard 5 % and zero 0 %, open, from 2018-01-01. */
async function seededRates() {
  await sql`delete from tax_rates where valid_from <> '2018-01-01'`.execute(api.db);
  await sql`update tax_rates set valid_to = null where valid_from = '2018-01-01'`.execute(api.db);
}

describe('company tax settings', () => {
  it('shows the defaults of every kind, then the TRN, registration day and categories set, merged kind by kind', async () => {
    const company = await createCompany(api);
    const before = (await readCompany(company.id)).data;
    expect(before?.tax).toEqual({
      trn: null,
      vat_registered_on: null,
      categories: {
        rent_residential: 'exempt',
        rent_residential_first_supply: 'zero_rated',
        rent_commercial: 'standard',
        stay: 'standard',
        fee: 'standard',
        job_charge: 'standard',
        deposit: 'out_of_scope',
        tourism_dirham: 'out_of_scope',
      },
    });
    const set = await patchCompany(company.id, {
      settings: { trn: '100123456700003', vat_registered_on: '2018-01-01', tax_categories: { rent_residential: 'standard' } },
    });
    expect(set.response.status, JSON.stringify(set.error)).toBe(200);
    const more = await patchCompany(company.id, { settings: { tax_categories: { job_charge: 'exempt' }, hide_prices: true } });
    expect(more.data?.settings).toMatchObject({ tax_categories: { rent_residential: 'standard', job_charge: 'exempt' } });
    expect(more.data?.tax).toMatchObject({
      trn: '100123456700003',
      vat_registered_on: '2018-01-01',
      categories: { rent_residential: 'standard', job_charge: 'exempt', fee: 'standard', deposit: 'out_of_scope' },
    });
    const removed = await patchCompany(company.id, { settings: { trn: null, vat_registered_on: null } });
    expect(removed.data?.tax).toMatchObject({ trn: null, vat_registered_on: null, categories: { job_charge: 'exempt' } });
  });

  it('takes the tax settings when the company is created', async () => {
    const company = await createCompany(api, { settings: { trn: '100000000000003', tax_categories: { fee: 'zero_rated' } } });
    const read = (await readCompany(company.id)).data;
    expect(read?.tax).toMatchObject({ trn: '100000000000003', categories: { fee: 'zero_rated', stay: 'standard' } });
  });

  it.each([
    [{ trn: '10012345670000' }, 'settings.trn', 'invalid_trn'], // 14 digits
    [{ trn: '1001234567000031' }, 'settings.trn', 'invalid_trn'], // 16 digits
    [{ trn: '200123456700003' }, 'settings.trn', 'invalid_trn'], // not 100…
    [{ trn: '100-1234-5670-0003' }, 'settings.trn', 'invalid_trn'],
    [{ trn: '10012345670000a' }, 'settings.trn', 'invalid_trn'],
    [{ trn: ' 100123456700003' }, 'settings.trn', 'invalid_trn'],
    [{ trn: '١٠٠١٢٣٤٥٦٧٠٠٠٠٣' }, 'settings.trn', 'invalid_trn'], // Arabic-Indic digits: not the FTA's form
    [{ trn: '' }, 'settings.trn', 'invalid_trn'],
    [{ trn: 100123456700003 }, 'settings.trn', 'invalid_type'],
    [{ vat_registered_on: '2018-02-30' }, 'settings.vat_registered_on', undefined],
    [{ tax_categories: { fee: 'reduced' } }, 'settings.tax_categories.fee', 'invalid_value'],
    [{ tax_categories: { fee: null } }, 'settings.tax_categories.fee', undefined],
    [{ tax_categories: { parking: 'standard' } }, 'settings.tax_categories.parking', 'unknown_field'],
    [{ tax_categories: 'standard' }, 'settings.tax_categories', undefined],
  ])('refuses %j at %s (%s), changing nothing', async (settings, path, code) => {
    const company = await createCompany(api, { settings: { trn: '100123456700003' } });
    const res = await patchCompany(company.id, { settings });
    expect(res.response.status).toBe(400);
    expect(res.error?.code).toBe('invalid_request');
    const error = res.error?.errors?.find((e) => e.path === path);
    expect(error, JSON.stringify(res.error)).toBeDefined();
    if (code) expect(error?.code).toBe(code);
    expect((await readCompany(company.id)).data?.settings).toEqual({ trn: '100123456700003' });
  });
});

describe('tax rates', () => {
  beforeAll(seededRates);
  beforeEach(async () => {
    await seededRates();
    // 09:00 UTC on 2026-11-29: it is still the 29th in UTC+14 (23:00), the last day some company may have reached.
    api.clock.set(new Date('2026-11-29T09:00:00.000Z'));
  });
  afterAll(async () => {
    api.clock.set(null);
    await seededRates();
  });

  it('lists the seeded UAE rates: standard 5 % and zero 0 % from 2018-01-01, open', async () => {
    const res = await rates();
    expect(res.response.status).toBe(200);
    expect(
      res.data?.results.map(({ category, rate, code, valid_from, valid_to }) => ({ category, rate, code, valid_from, valid_to })),
    ).toEqual([
      { category: 'standard', rate: '5', code: 'S', valid_from: '2018-01-01', valid_to: null },
      { category: 'zero_rated', rate: '0', code: 'Z', valid_from: '2018-01-01', valid_to: null },
    ]);
  });

  it('adds a future rate once the open one is closed the day before, each audited', async () => {
    const standard = (await rates()).data!.results.find((r) => r.category === 'standard')!;
    const closed = await closeRate(standard.id, { valid_to: '2029-12-31' });
    expect(closed.response.status, JSON.stringify(closed.error)).toBe(200);
    expect(closed.data).toMatchObject({ valid_from: '2018-01-01', valid_to: '2029-12-31', rate: '5' });
    const added = await addRate({ category: 'standard', rate: '7.5', valid_from: '2030-01-01' });
    expect(added.response.status, JSON.stringify(added.error)).toBe(201);
    expect(added.data).toMatchObject({ category: 'standard', rate: '7.5', code: 'S', valid_from: '2030-01-01', valid_to: null });
    const audit = await api.db
      .selectFrom('audit_log')
      .select(['action', 'subject', 'company_id'])
      .where('subject', 'in', [standard.id, added.data!.id])
      .orderBy('id')
      .execute();
    expect(audit).toEqual([
      { action: 'tax_rate.closed', subject: standard.id, company_id: null },
      { action: 'tax_rate.created', subject: added.data!.id, company_id: null },
    ]);
    expect((await rates()).data?.results.map((r) => [r.category, r.rate, r.valid_from, r.valid_to])).toEqual([
      ['standard', '5', '2018-01-01', '2029-12-31'],
      ['standard', '7.5', '2030-01-01', null],
      ['zero_rated', '0', '2018-01-01', null],
    ]);
  });

  it('writes a rate, or closes one, in one statement with its audit row (a refusal reads what it met)', async () => {
    const standard = (await rates()).data!.results.find((r) => r.category === 'standard')!;
    const close = await counted(() => closeRate(standard.id, { valid_to: '2029-12-31' }));
    expect(close.answer.response.status).toBe(200);
    expect(close.sent).toBe(1);
    const add = await counted(() => addRate({ category: 'standard', rate: '6', valid_from: '2030-01-01' }));
    expect(add.answer.response.status).toBe(201);
    expect(add.sent).toBe(1);
    const refused = await counted(() => addRate({ category: 'standard', rate: '6', valid_from: '2031-01-01' }));
    expect(refused.answer.response.status).toBe(400);
    expect(refused.sent).toBe(2);
  });

  it('deletes a rate that has not started anywhere (one statement, audited), never one in force on a day already used', async () => {
    const standard = (await rates()).data!.results.find((r) => r.category === 'standard')!;
    await closeRate(standard.id, { valid_to: '2026-11-29' });
    const mistaken = (await addRate({ category: 'standard', rate: '50', valid_from: '2026-11-30' })).data!;
    const removed = await counted(() => deleteRate(mistaken.id));
    expect(removed.answer.response.status).toBe(204);
    expect(removed.sent).toBe(1);
    const audit = await api.db
      .selectFrom('audit_log')
      .select('action')
      .where('subject', '=', mistaken.id)
      .orderBy('id')
      .execute();
    expect(audit.map((a) => a.action)).toEqual(['tax_rate.created', 'tax_rate.deleted']);
    const right = (await addRate({ category: 'standard', rate: '5', valid_from: '2026-11-30' })).data!;
    // 10:00 UTC: the 30th has begun in UTC+14, so the rate is in force on a day some company may have used.
    api.clock.set(new Date('2026-11-29T10:00:00.000Z'));
    const kept = await deleteRate(right.id);
    expect(kept.response.status).toBe(409);
    expect(kept.error?.code).toBe('conflict');
    expect((await deleteRate(standard.id)).response.status).toBe(409);
    expect((await deleteRate('00000000-0000-4000-8000-000000000000')).response.status).toBe(404);
    expect((await rates()).data?.results.map((r) => r.id)).toEqual([standard.id, right.id, expect.any(String)]);
  });

  it('refuses a rate whose days meet another rate of its category (400 at valid_from naming it), changing nothing', async () => {
    const res = await addRate({ category: 'standard', rate: '6', valid_from: '2030-01-01' });
    expect(res.response.status).toBe(400);
    expect(res.error?.errors?.[0]).toMatchObject({ path: 'valid_from', code: 'overlapping_rate' });
    expect(res.error?.errors?.[0]?.message).toContain('2018-01-01 to (open)');
    const standard = (await rates()).data!.results.find((r) => r.category === 'standard')!;
    await closeRate(standard.id, { valid_to: '2030-06-30' });
    const bounded = await addRate({ category: 'standard', rate: '6', valid_from: '2030-01-01', valid_to: '2030-03-31' });
    expect(bounded.error?.errors?.[0]).toMatchObject({ path: 'valid_from', code: 'overlapping_rate' });
    // The other category's days are its own.
    const zero = await addRate({ category: 'zero_rated', rate: '0', valid_from: '2030-07-01' });
    expect(zero.error?.errors?.[0]).toMatchObject({ path: 'valid_from', code: 'overlapping_rate' });
    const fits = await addRate({ category: 'standard', rate: '6', valid_from: '2030-07-01', valid_to: '2030-07-01' });
    expect(fits.response.status, JSON.stringify(fits.error)).toBe(201);
    expect((await rates()).data?.results).toHaveLength(3);
  });

  it('lets one of two simultaneous overlapping rates in, the other 400 (the exclusion constraint decides)', async () => {
    const standard = (await rates()).data!.results.find((r) => r.category === 'standard')!;
    await closeRate(standard.id, { valid_to: '2029-12-31' });
    const answers = await Promise.all(
      ['7', '8', '9', '10'].map((rate) => addRate({ category: 'standard', rate, valid_from: '2030-01-01' })),
    );
    expect(answers.map((a) => a.response.status).sort()).toEqual([201, 400, 400, 400]);
    for (const refused of answers.filter((a) => a.response.status === 400)) {
      expect(refused.error?.errors?.[0]?.code).toBe('overlapping_rate');
    }
  });

  it('has the database refuse overlapping days of one category whatever writes them', async () => {
    const write = sql`insert into tax_rates (category, rate, valid_from, valid_to) values ('standard', 6, '2040-01-01', null)`;
    const error = await write.execute(api.db).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isExclusionViolation(error)).toBe(true);
    const alone = await sql`insert into tax_rates (category, rate, valid_from) values ('exempt', 0, '2040-01-01')`
      .execute(api.db)
      .then(
        () => 'written',
        () => 'refused',
      );
    expect(alone).toBe('refused');
  });

  it('never changes a day already used: a rate starts after today in UTC+14, an open one closes on it or later', async () => {
    const standard = (await rates()).data!.results.find((r) => r.category === 'standard')!;
    for (const valid_to of ['2026-11-28', '2018-01-01']) {
      const res = await closeRate(standard.id, { valid_to });
      expect(res.response.status).toBe(400);
      expect(res.error?.errors?.[0]).toMatchObject({ path: 'valid_to', code: 'date_in_use' });
    }
    // 10:00 UTC: the 30th has begun in UTC+14, so the 29th can no longer be the last day.
    api.clock.set(new Date('2026-11-29T10:00:00.000Z'));
    expect((await closeRate(standard.id, { valid_to: '2026-11-29' })).error?.errors?.[0]?.code).toBe('date_in_use');
    api.clock.set(new Date('2026-11-29T09:59:59.000Z'));
    const closed = await closeRate(standard.id, { valid_to: '2026-11-29' });
    expect(closed.response.status, JSON.stringify(closed.error)).toBe(200);
    for (const valid_from of ['2026-11-29', '2026-01-01']) {
      const res = await addRate({ category: 'standard', rate: '5', valid_from });
      expect(res.response.status).toBe(400);
      expect(res.error?.errors?.[0]).toMatchObject({ path: 'valid_from', code: 'date_in_use' });
    }
    expect((await addRate({ category: 'standard', rate: '5', valid_from: '2026-11-30' })).response.status).toBe(201);
  });

  it('closes only an open rate (409 once closed), not before its first day, and answers 404 for an unknown one', async () => {
    const standard = (await rates()).data!.results.find((r) => r.category === 'standard')!;
    await closeRate(standard.id, { valid_to: '2029-12-31' });
    const again = await closeRate(standard.id, { valid_to: '2030-12-31' });
    expect(again.response.status).toBe(409);
    expect(again.error?.code).toBe('conflict');
    const future = await addRate({ category: 'standard', rate: '6', valid_from: '2031-01-01' });
    const early = await closeRate(future.data!.id, { valid_to: '2030-12-31' });
    expect(early.error?.errors?.[0]).toMatchObject({ path: 'valid_to', code: 'before_valid_from' });
    expect((await closeRate('00000000-0000-4000-8000-000000000000', { valid_to: '2030-01-01' })).response.status).toBe(404);
    const read = (await rates()).data?.results.find((r) => r.id === standard.id);
    expect(read?.valid_to).toBe('2029-12-31');
  });

  it.each([
    [{ category: 'exempt', rate: '0', valid_from: '2030-01-01' }, 'category', 'no_rate'],
    [{ category: 'out_of_scope', rate: '0', valid_from: '2030-01-01' }, 'category', 'no_rate'],
    [{ category: 'reduced', rate: '0', valid_from: '2030-01-01' }, 'category', 'invalid_value'],
    [{ category: 'standard', rate: '100.01', valid_from: '2030-01-01' }, 'rate', 'too_big'],
    [{ category: 'standard', rate: '-1', valid_from: '2030-01-01' }, 'rate', undefined],
    [{ category: 'standard', rate: 5, valid_from: '2030-01-01' }, 'rate', 'invalid_type'],
    [{ category: 'standard', rate: '5', valid_from: '2030-02-30' }, 'valid_from', undefined],
    [{ category: 'standard', rate: '5', valid_from: '2030-01-02', valid_to: '2030-01-01' }, 'valid_to', undefined],
    [{ category: 'standard', rate: '5', valid_from: '2030-01-01', extra: 1 }, 'extra', 'unknown_field'],
  ])('refuses %j at %s (%s)', async (body, path, code) => {
    const res = await addRate(body);
    expect(res.response.status).toBe(400);
    const error = res.error?.errors?.find((e) => e.path === path);
    expect(error, JSON.stringify(res.error)).toBeDefined();
    if (code) expect(error?.code).toBe(code);
    expect((await rates()).data?.results).toHaveLength(2);
  });

  describe('on the command line', () => {
    const cli = adminCli(() => api);
    it('lists, adds and closes rates (npm run admin -- tax-rates …)', cliTimeout, async () => {
      const listed = await cli('tax-rates', 'list');
      const standard = listed.results.find((r: { category: string }) => r.category === 'standard');
      expect((await cli('tax-rates', 'close', standard.id, '2029-12-31')).valid_to).toBe('2029-12-31');
      const added = await cli('tax-rates', 'add', JSON.stringify({ category: 'standard', rate: '6', valid_from: '2030-01-01' }));
      expect(added).toMatchObject({ category: 'standard', rate: '6', valid_from: '2030-01-01', valid_to: null });
    });
  });
});

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Prepared, sellerOf } from '../../lib/invoices';
import type { Company } from '../../schema/platform/db';
import { testClient } from '../support/client';
import { createTestApi, type TestApi } from '../support/harness';
import { feeDocument as feeOf, invoiceSettings, issueDocument } from '../support/invoices';
import { checkPintAeRules } from '../support/pint-ae';
import { createKey } from '../support/world';
import { type StatementWorld, statementWorld } from './support';

/**
 * Tax invoices and credit notes as records (issue 35; lib/invoices.ts, migration 0045): the one way a document is
 * issued — its number taken in the statement that issues it, without gaps under concurrency, given back when that
 * statement fails —, the database refusing any change, and the routes that read them (JSON, the XML as issued).
 * Each kind of supply that issues one is tested with its own write (test/leases, test/stay, test/maintenance…).
 */

let api: TestApi;
let w: StatementWorld;
let company: Company;

beforeAll(async () => {
  api = await createTestApi({ env: { RATE_LIMIT_SERVER_KEY_PER_MINUTE: '1000000' } });
  w = await statementWorld({ api, settings: invoiceSettings });
  company = (await api.db
    .selectFrom('companies')
    .selectAll()
    .where('id', '=', w.company.id)
    .executeTakeFirstOrThrow()) as Company;
});
afterAll(async () => {
  api.clock.set(null);
  await api.close();
});

const fee = (amount: string) => {
  const seller = sellerOf(company, '2027-02-03');
  if ('issued' in seller) throw new Error(JSON.stringify(seller.problems));
  return feeOf(seller, amount);
};
const issue = (prepared: Prepared, key: string, fail = false) => issueDocument(api.db, company.id, prepared, key, fail);

const numbers = async () =>
  (
    await api.db
      .selectFrom('tax_documents')
      .select(['number', 'sequence'])
      .where('company_id', '=', company.id)
      .where('series', '=', 'INV')
      .orderBy('sequence')
      .execute()
  ).map((row) => row.number);

describe('numbering', () => {
  it('numbers 30 documents issued at once 1 to 30, no gap, none twice; a failed issue gives its number back', async () => {
    const before = (await numbers()).length;
    await Promise.all(Array.from({ length: 30 }, (_, i) => issue(fee('1050.00'), `concurrent-${i}`)));
    await expect(issue(fee('1050.00'), 'failing', true)).rejects.toThrow();
    await issue(fee('1050.00'), 'after-failure');
    const issued = await numbers();
    expect(issued).toEqual(Array.from({ length: before + 31 }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`));
    // Each has its event, once, with its id and number only.
    const events = await api.db
      .selectFrom('events')
      .select('data')
      .where('company_id', '=', company.id)
      .where('type', '=', 'invoice.issued')
      .execute();
    expect(events.map((e) => (e.data as { reference: string }).reference).sort()).toEqual(issued);
    expect(Object.keys(events[0]?.data as object).sort()).toEqual(['invoice_id', 'reference']);
  });

  it('refuses a second document for the same source (the statement fails, no number taken)', async () => {
    const before = await numbers();
    await expect(issue(fee('10.00'), 'concurrent-0')).rejects.toThrow(/tax_documents_source/);
    expect(await numbers()).toEqual(before);
  });

  it('writes the number in place of the slot, in the XML and the document, and nowhere the slot', async () => {
    const prepared = fee('525.00');
    await issue(prepared, 'slot');
    const row = await api.db
      .selectFrom('tax_documents')
      .select(['number', 'xml', sql<string>`document::text`.as('document')])
      .where('source_key', '=', 'slot')
      .executeTakeFirstOrThrow();
    expect(row.xml).toContain(`<cbc:ID>${row.number}</cbc:ID>`);
    expect(JSON.parse(row.document).number).toBe(row.number);
    expect(row.xml).not.toContain(prepared.slot);
    expect(row.document).not.toContain(prepared.slot);
    expect(checkPintAeRules(row.xml)).toEqual([]);
  });
});

describe('never changed once issued', () => {
  it('refuses any change of the document and its deletion; its hand-off columns change', async () => {
    const [number] = await numbers();
    const where = sql<boolean>`company_id = ${company.id}::uuid and number = ${number}`;
    for (const change of [
      sql`update tax_documents set xml = xml || ' ' where ${where}`,
      sql`update tax_documents set vat = vat + 1, gross = gross + 1 where ${where}`,
      sql`update tax_documents set document = '{}'::jsonb where ${where}`,
      sql`update tax_documents set issue_date = issue_date + 1 where ${where}`,
      sql`delete from tax_documents where ${where}`,
    ]) {
      await expect(change.execute(api.db)).rejects.toThrow(/never (changes|deleted)/);
    }
    await sql`update tax_documents set einvoice_attempts = einvoice_attempts + 1 where ${where}`.execute(api.db);
  });
});

describe('the routes', () => {
  it('lists newest first, pages without loss, filters, reads one as JSON and as the XML issued', async () => {
    const key = await createKey(api, w.company.id, { scopes: ['read:invoices'] });
    const client = testClient(api, { host: w.company.host, serverKey: key.secret });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.GET('/api/v1/invoices', { params: { query: { page_size: 7, cursor } } });
      expect(page.response.status, JSON.stringify(page.error)).toBe(200);
      seen.push(...(page.data?.results ?? []).map((d) => d.number));
      cursor = page.data?.next_cursor ?? undefined;
    } while (cursor);
    const all = await numbers();
    expect(seen).toEqual([...all].reverse());

    const one = await client.GET('/api/v1/invoices/{number}', { params: { path: { number: 'INV-000003' } } });
    expect(one.data).toMatchObject({
      number: 'INV-000003',
      kind: 'invoice',
      type_code: '380',
      simplified: true,
      issue_date: '2027-02-03',
      currency: 'AED',
      credits: null,
      seller: { legal_name: invoiceSettings.legal_name, trn: '100123456700003' },
      lines: [{ category: 'standard', rate: '5', net: '1000.00', vat: '50.00', gross: '1050.00' }],
      totals: { net: '1000.00', vat: '50.00', gross: '1050.00', paid: '1050.00', due: '0.00' },
      einvoice: { status: 'pending', reasons: null, answered_at: null },
    });
    const xml = await api.request(`/api/v1/invoices/INV-000003.xml`, { host: w.company.host, key: key.secret });
    expect(xml.status, xml.text).toBe(200);
    expect(xml.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    const stored = await api.db
      .selectFrom('tax_documents')
      .select('xml')
      .where('company_id', '=', company.id)
      .where('number', '=', 'INV-000003')
      .executeTakeFirstOrThrow();
    expect(xml.text).toBe(stored.xml);

    const credits = await client.GET('/api/v1/invoices', { params: { query: { kind: 'credit_note' } } });
    expect(credits.data?.results).toEqual([]);
    const later = await client.GET('/api/v1/invoices', { params: { query: { issued_from: '2027-02-04' } } });
    expect(later.data?.results).toEqual([]);
  });

  it('prints the document in English and in Arabic (right to left) with the JSON’s very amounts', async () => {
    const key = await createKey(api, w.company.id, { scopes: ['read:invoices'] });
    const client = testClient(api, { host: w.company.host, serverKey: key.secret });
    const json = (await client.GET('/api/v1/invoices/{number}', { params: { path: { number: 'INV-000003' } } })).data;
    for (const [language, title, dir] of [
      ['en', 'Simplified Tax Invoice', 'ltr'],
      ['ar', 'فاتورة ضريبية مبسطة', 'rtl'],
    ] as const) {
      const res = await api.request(`/api/v1/invoices/INV-000003/page?language=${language}`, {
        host: w.company.host,
        key: key.secret,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.text).toContain(`<html lang="${language}" dir="${dir}">`);
      expect(res.text).toContain(`<h1>${title}</h1>`);
      const totals = Object.fromEntries(
        [...res.text.matchAll(/data-amount="([^"]+)" data-currency="AED" data-total="(\w+)"/g)].map((m) => [m[2], m[1]]),
      );
      expect(totals).toEqual(json?.totals);
      const vat = [...res.text.matchAll(/data-amount="([^"]+)" data-currency="AED" data-vat="line"/g)].map((m) => m[1]);
      expect(vat).toEqual(json?.lines.map((line) => line.vat));
      expect(res.text).toContain('100123456700003');
    }
    const missing = await api.request('/api/v1/invoices/INV-999999/page', { host: w.company.host, key: key.secret });
    expect(missing.status).toBe(404);
  });

  it('answers 404 for a number not issued or another company’s, 400 for a malformed one, 403 without read:invoices', async () => {
    const key = await createKey(api, w.company.id, { scopes: ['read:invoices'] });
    const other = await statementWorld({ api });
    const otherKey = await createKey(api, other.company.id, { scopes: ['read:invoices'] });
    const get = (path: string, host = w.company.host, secret = key.secret) => api.request(path, { host, key: secret });
    expect((await get('/api/v1/invoices/INV-999999')).status).toBe(404);
    expect((await get('/api/v1/invoices/INV-999999.xml')).status).toBe(404);
    expect((await get('/api/v1/invoices/INV-000001', other.company.host, otherKey.secret)).status).toBe(404);
    expect((await get('/api/v1/invoices/INV-000001.xml', other.company.host, otherKey.secret)).status).toBe(404);
    for (const bad of ['INV-1', 'XYZ-000001', 'INV-000001.pdf', 'INV-000001.xml.xml']) {
      const res = await get(`/api/v1/invoices/${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    expect((await get('/api/v1/invoices/INV-000001', w.company.host, w.reader.secret)).status).toBe(403);
    expect((await get('/api/v1/invoices/INV-000001.xml', w.company.host, w.reader.secret)).status).toBe(403);
  });
});

/**
 * Tax invoices (issue 35) in the BUILT Worker bundles in workerd (Neon driver → local PostgreSQL): the demo's office
 * lease (commercial rent) received through the leases Worker issues its tax invoice in the receipt's statement, with
 * the next number; the statements Worker lists it, answers its JSON, its PINT AE XML (the bytes issued, meeting the
 * rules written from the specification) and its printable page in Arabic; a bounce issues the credit note.
 */
import { randomBytes } from 'node:crypto';
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCompany } from '../../functions/admin/companies';
import { importCatalogue } from '../../functions/catalogue/content';
import demoCatalogue from '../../functions/catalogue/demo-catalogue.json' with { type: 'json' };
import { seedLeasesDemo } from '../../functions/leases/demo';
import { newDetailsKey } from '../../lib/crypto-jwe';
import type { DatabaseHandle } from '../../lib/db/index';
import { createKey } from '../../lib/keys';
import { CatalogueImportInput } from '../../schema/catalogue/admin';
import { CreateCompanyInput } from '../../schema/platform/admin';
import { invoiceSettings } from '../support/invoices';
import { checkPintAeRules } from '../support/pint-ae';
import { bundleOf, startWorkerd, type Workerd, workerClient } from './support';

const suffix = randomBytes(4).toString('hex');
const host = `inv${suffix}.workerd.test`;
const details = newDetailsKey();

let workerd: Workerd | undefined;
let mf: Miniflare | undefined;
let handle: DatabaseHandle | undefined;
let companyId = '';
let office = '';
let reader = '';

beforeAll(async () => {
  const bindings = {
    DETAILS_KEYS: JSON.stringify({ [details.kid]: details.key }),
    DETAILS_KEY_ID: details.kid,
    COMPANY_CACHE_TTL_SECONDS: '0',
  };
  workerd = await startWorkerd({
    template: inject('workerdTemplate'),
    databaseName: `pa_workerd_invoices_${suffix}`,
    applicationName: 'pa_workerd_invoices',
    workers: [
      { name: 'leases', bundle: bundleOf('leases'), bindings },
      { name: 'statements', bundle: bundleOf('statements'), bindings },
    ],
    seed: async (db) => {
      const now = new Date();
      await db.db.transaction().execute(async (trx) => {
        const company = await createCompany(
          trx,
          CreateCompanyInput.parse({
            name: 'Workerd Invoices',
            hosts: [host],
            environment: 'production',
            currency: 'AED',
            time_zone: 'Asia/Dubai',
            settings: { team_module: true, ...invoiceSettings },
          }),
        );
        companyId = company.id;
        await importCatalogue(trx, company, CatalogueImportInput.parse(demoCatalogue), { render: null, now });
        await seedLeasesDemo(trx, company, now);
        office = (
          await createKey(trx, company.id, { kind: 'server', name: 'office', scopes: ['write:leases', 'read:leases'] }, 'admin')
        ).secret;
        reader = (await createKey(trx, company.id, { kind: 'server', name: 'books', scopes: ['read:invoices'] }, 'admin')).secret;
      });
    },
  });
  ({ mf, handle } = workerd);
});

afterAll(async () => {
  await workerd?.close();
});

const leases = () => workerClient(() => mf, 'leases', { host, serverKey: office });
const statements = () => workerClient(() => mf, 'statements', { host, serverKey: reader });

describe('tax invoices on Workers', () => {
  it('issues the invoice of a commercial rent received through the leases Worker, read through the statements Worker', async () => {
    if (!handle) throw new Error('workerd did not start');
    const before = await statements().GET('/api/v1/invoices', { params: { query: { page_size: 100 } } });
    expect(before.response.status).toBe(200);
    const issued = before.data?.results ?? [];
    // The demo's office lease: its receipts so far each issued one.
    expect(issued.length).toBeGreaterThan(0);
    const due = await handle.db
      .selectFrom('rent_payments as p')
      .innerJoin('leases as l', 'l.id', 'p.lease_id')
      .innerJoin('listings as h', 'h.id', 'l.listing_id')
      .select('p.id')
      .where('p.company_id', '=', companyId)
      .where('h.slug_en', '=', 'business-bay-fitted-office')
      .where('p.status', '=', 'due')
      .orderBy('p.due_on')
      .executeTakeFirstOrThrow();
    const received = await leases().PATCH('/api/v1/rent-payments/{payment_id}', {
      params: { path: { payment_id: due.id } },
      body: { status: 'received' },
    });
    expect(received.response.status, JSON.stringify(received.error)).toBe(200);

    const invoices = (await statements().GET('/api/v1/invoices', { params: { query: { kind: 'invoice' } } })).data?.results;
    const newest = invoices?.[0];
    const last = Math.max(...issued.filter((d) => d.kind === 'invoice').map((d) => Number(d.number.slice(4))));
    expect(newest).toMatchObject({
      number: `INV-${String(last + 1).padStart(6, '0')}`,
      kind: 'invoice',
      type_code: '380',
      source: { kind: 'rent_payment', key: due.id },
      lines: [{ category: 'standard', rate: '5' }],
    });
    const number = newest?.number as string;
    const xml = await (await mf!.getWorker('statements')).fetch(`http://${host}/api/v1/invoices/${number}.xml`, {
      headers: { Authorization: `Bearer ${reader}` },
    });
    expect(xml.status).toBe(200);
    const text = await xml.text();
    const stored = await handle.db
      .selectFrom('tax_documents')
      .select('xml')
      .where('company_id', '=', companyId)
      .where('number', '=', number)
      .executeTakeFirstOrThrow();
    expect(text).toBe(stored.xml);
    expect(checkPintAeRules(text)).toEqual([]);
    const page = await (await mf!.getWorker('statements')).fetch(`http://${host}/api/v1/invoices/${number}/page?language=ar`, {
      headers: { Authorization: `Bearer ${reader}` },
    });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('dir="rtl"');

    const bounced = await leases().PATCH('/api/v1/rent-payments/{payment_id}', {
      params: { path: { payment_id: due.id } },
      body: { status: 'bounced' },
    });
    expect(bounced.response.status, JSON.stringify(bounced.error)).toBe(200);
    const credits = (await statements().GET('/api/v1/invoices', { params: { query: { kind: 'credit_note' } } })).data?.results;
    expect(credits?.[0]).toMatchObject({ kind: 'credit_note', type_code: '381', credits: number });
    expect(credits?.[0]?.totals.vat).toBe(newest?.totals.vat);
  });
});

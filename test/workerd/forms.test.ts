/**
 * The visitor forms in the BUILT Workers (workerd, Neon driver → local PostgreSQL): an enquiry through the forms
 * group's Worker and the default one, and a booking request through the stay group's Worker, as a browser on the
 * company's page sends them (publishable key, Origin, consent, the spam check's development token). On Workers the
 * prepared statements go through the Neon driver and keys are never kept in memory between requests.
 */
import { randomBytes } from 'node:crypto';
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importCatalogue } from '../../functions/catalogue/content';
import { createCompany } from '../../functions/admin/companies';
import type { DatabaseHandle } from '../../lib/db/index';
import { createKey } from '../../lib/keys';
import demoCatalogue from '../../functions/catalogue/demo-catalogue.json' with { type: 'json' };
import { CatalogueImportInput } from '../../schema/catalogue/admin';
import { CreateCompanyInput } from '../../schema/platform/admin';
import { bundleOf, startWorkerd, type Workerd } from './support';

const suffix = randomBytes(4).toString('hex');
// A localhost page (a development workspace takes one): Miniflare answers 403 "Invalid Origin header" to any other.
const formHost = `f${suffix}.workerd.test`;
const origin = 'http://localhost:8080';

let workerd: Workerd | undefined;
let mf: Miniflare | undefined;
let handle: DatabaseHandle | undefined;
let formKey: string;

beforeAll(async () => {
  workerd = await startWorkerd({
    databaseName: `pa_workerd_forms_${suffix}`,
    applicationName: 'pa_workerd_forms',
    workers: [
      { name: 'default', bundle: bundleOf('default'), bindings: { ADMIN_API: 'off' } },
      { name: 'forms', bundle: bundleOf('forms') },
      { name: 'stay', bundle: bundleOf('stay') },
    ],
    seed: async (db) => {
      // A development workspace of its own: it takes the spam check's development token without asking Cloudflare.
      formKey = await db.db.transaction().execute(async (trx) => {
        const company = await createCompany(
          trx,
          CreateCompanyInput.parse({
            name: 'Workerd Forms',
            hosts: [formHost],
            environment: 'development',
            currency: 'AED',
            time_zone: 'Asia/Dubai',
            settings: { bookings_enabled: true },
          }),
        );
        await importCatalogue(trx, company, CatalogueImportInput.parse(demoCatalogue), { render: null, now: new Date() });
        const key = await createKey(
          trx,
          company.id,
          { kind: 'publishable', origins: [origin], leadTypes: ['enquiry', 'booking'] },
          'admin',
        );
        return key.secret;
      });
    },
  });
  ({ mf, handle } = workerd);
});

afterAll(async () => {
  await workerd?.close();
});

async function post(worker: string, path: string, body: unknown) {
  if (!mf) throw new Error('Miniflare is not running');
  const fetcher = await mf.getWorker(worker);
  const response = await fetcher.fetch(`http://${formHost}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Api-Key': formKey, Origin: origin },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

const consent = { consent: true, consent_version: '2026-01', challenge: 'XXXX.DUMMY.TOKEN.XXXX', website: '' };

describe('the visitor forms on Workers (prepared statements through the Neon driver, keys never kept)', () => {
  it('record an enquiry of a new, then of a known visitor (never filled: what they sent is on the lead), each in one statement', async () => {
    const email = `visitor.${suffix}@example.com`;
    const first = await post('forms', '/api/v1/leads', { ...consent, name: 'Nadia', email, listing: 'marina-gate-2br-sea-view' });
    expect(first.status, JSON.stringify(first.json)).toBe(201);
    const second = await post('default', '/api/v1/leads', { ...consent, email: email.toUpperCase(), phone: '+971501234567' });
    expect(second.status, JSON.stringify(second.json)).toBe(201);
    const people = await handle!.db
      .selectFrom('contacts')
      .select(['id', 'name', 'phone'])
      .where('email_key', '=', email)
      .execute();
    expect(people).toEqual([{ id: expect.any(String), name: 'Nadia', phone: null }]);
    const leads = await handle!.db
      .selectFrom('leads')
      .select(['sent_email', 'sent_phone'])
      .where('contact_id', '=', people[0]!.id)
      .orderBy('created_at')
      .execute();
    expect(leads).toEqual([
      { sent_email: email, sent_phone: null },
      { sent_email: email.toUpperCase(), sent_phone: '+971501234567' },
    ]);
  });

  it('hold a booking request (the stay read, then the hold), and refuse the same nights again', async () => {
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const stay = { listing: 'palm-5br-villa-private-beach-holiday', check_in: day(200), check_out: day(205), guests: 2 };
    const booking = { ...consent, ...stay, name: 'Layla', email: `guest.${suffix}@example.com` };
    const held = await post('stay', '/api/v1/bookings', booking);
    expect(held.status, JSON.stringify(held.json)).toBe(201);
    expect(held.json.status).toBe('held');
    const again = await post('stay', '/api/v1/bookings', { ...booking, email: `other.${suffix}@example.com` });
    expect(again.status).toBe(400);
    expect(again.json.code).toBe('unavailable');
  });
});

/**
 * The visitor forms in the BUILT Workers (workerd, Neon driver → local PostgreSQL): an enquiry through the forms
 * group's Worker and the default one, and a booking request through the stay group's Worker, as a browser on the
 * company's page sends them (publishable key, Origin, consent, the spam check's development token). On Workers the
 * prepared statements go through the Neon driver and keys are never kept in memory between requests.
 */
import { randomBytes } from 'node:crypto';
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { importCatalogue } from '../../functions/catalogue/content';
import { createCompany } from '../../functions/admin/companies';
import type { DatabaseHandle } from '../../lib/db/index';
import { createKey } from '../../lib/keys';
import demoCatalogue from '../../functions/catalogue/demo-catalogue.json' with { type: 'json' };
import { CatalogueImportInput } from '../../schema/catalogue/admin';
import { CreateCompanyInput } from '../../schema/platform/admin';
import { bundleOf, startWorkerd, type Workerd, workerClient } from './support';

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
    template: inject('workerdTemplate'),
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

/** The typed client of the company's page (its publishable key, its Origin) on one of the Workers. */
const page = (worker: string) =>
  workerClient(() => mf, worker, { host: formHost, publishableKey: formKey, headers: { Origin: origin } });
const lead = (worker: string, body: Record<string, unknown>) => page(worker).POST('/api/v1/leads', { body: body as never });
const bookingRequest = (worker: string, body: Record<string, unknown>) =>
  page(worker).POST('/api/v1/bookings', { body: body as never });

const consent = { consent: true, consent_version: '2026-01', challenge: 'XXXX.DUMMY.TOKEN.XXXX', website: '' };

describe('the visitor forms on Workers (prepared statements through the Neon driver, keys never kept)', () => {
  it('record an enquiry of a new, then of a known visitor (never filled: what they sent is on the lead), each in one statement', async () => {
    const email = `visitor.${suffix}@example.com`;
    const first = await lead('forms', { ...consent, name: 'Nadia', email, listing: 'marina-gate-2br-sea-view' });
    expect(first.response.status, JSON.stringify(first.error)).toBe(201);
    const second = await lead('default', { ...consent, email: email.toUpperCase(), phone: '+971501234567' });
    expect(second.response.status, JSON.stringify(second.error)).toBe(201);
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
    const held = await bookingRequest('stay', booking);
    expect(held.response.status, JSON.stringify(held.error)).toBe(201);
    expect(held.data?.status).toBe('held');
    const again = await bookingRequest('stay', { ...booking, email: `other.${suffix}@example.com` });
    expect(again.response.status).toBe(400);
    expect(again.error?.code).toBe('unavailable');
  });
});

/**
 * Payments online (issue 34) in the BUILT Worker bundles in workerd (Neon driver → local PostgreSQL), against the Stripe
 * stand-in on loopback (test/support/stripe-standin.ts, its payer's pages on): the admin API connects the company's
 * Stripe account (the default bundle with the admin API on), the leases Worker makes a rent payment's link (a Checkout
 * Session at the stand-in, asked by the Worker itself over the network), Stripe's signed webhook to the payments Worker
 * makes the rent payment `received` (a forged signature refused, nothing changed), and the stay Worker's pay button
 * answers 303 to the stand-in's page. The provider's API origin is the platform's configuration (`STRIPE_API_BASE`, a
 * binding here as in wrangler's vars), reached with the runtime's own fetch: no company's address, so the outbound guard
 * of companies' URLs is not in its path.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCompany } from '../../functions/admin/companies';
import { importCatalogue } from '../../functions/catalogue/content';
import demoCatalogue from '../../functions/catalogue/demo-catalogue.json' with { type: 'json' };
import { seedLeasesDemo } from '../../functions/leases/demo';
import { newDetailsKey } from '../../lib/crypto-jwe';
import { randomToken, sha256 } from '../../lib/crypto';
import type { DatabaseHandle } from '../../lib/db/index';
import { createKey } from '../../lib/keys';
import { developmentToken } from '../../lib/spam-check';
import { CatalogueImportInput } from '../../schema/catalogue/admin';
import { CreateCompanyInput } from '../../schema/platform/admin';
import { type StripeStandIn, startStripeStandIn } from '../support/stripe-standin';
import { bundleOf, startWorkerd, type Workerd, workerAdminClient, workerClient } from './support';

const suffix = randomBytes(4).toString('hex');
const host = `pay${suffix}.workerd.test`;
const adminToken = `adm_${randomToken(40)}`;
const details = newDetailsKey();
const villa = 'palm-5br-villa-private-beach-holiday';
const site = 'https://www.example.com';
// The booking form's page: on localhost (a development workspace takes one), as Miniflare answers 403 "Invalid Origin
// header" to a request whose Origin is another host (test/workerd/forms.test.ts).
const page = 'http://localhost:8080';
const webhookSecret = `whsec_${randomToken(32)}`;

let workerd: Workerd | undefined;
let mf: Miniflare | undefined;
let handle: DatabaseHandle | undefined;
let stripe: StripeStandIn;
let companyId = '';
let serverKey = '';
let publishableKey = '';
let accountId = '';

beforeAll(async () => {
  stripe = await startStripeStandIn({ hostedPages: true });
  const bindings = {
    DETAILS_KEYS: JSON.stringify({ [details.kid]: details.key }),
    DETAILS_KEY_ID: details.kid,
    COMPANY_CACHE_TTL_SECONDS: '0',
    STRIPE_API_BASE: stripe.url,
  };
  workerd = await startWorkerd({
    template: inject('workerdTemplate'),
    databaseName: `pa_workerd_payments_${suffix}`,
    applicationName: 'pa_workerd_payments',
    workers: [
      { name: 'payments', bundle: bundleOf('payments'), bindings },
      { name: 'leases', bundle: bundleOf('leases'), bindings },
      { name: 'stay', bundle: bundleOf('stay'), bindings },
      { name: 'admin', bundle: bundleOf('default'), bindings: { ...bindings, ADMIN_API: 'on' } },
    ],
    seed: async (db) => {
      const now = new Date();
      await db.db.transaction().execute(async (trx) => {
        const company = await createCompany(
          trx,
          CreateCompanyInput.parse({
            name: 'Workerd Payments',
            hosts: [host],
            // A development workspace: its booking form takes the test's spam-check token.
            environment: 'development',
            currency: 'AED',
            time_zone: 'Asia/Dubai',
            settings: { team_module: true, bookings_enabled: true, site_url: site },
          }),
        );
        companyId = company.id;
        await importCatalogue(trx, company, CatalogueImportInput.parse(demoCatalogue), { render: null, now });
        await seedLeasesDemo(trx, company, now);
        serverKey = (
          await createKey(trx, company.id, { kind: 'server', name: 'payments', scopes: ['write:leases', 'read:leases'] }, 'admin')
        ).secret;
        publishableKey = (
          await createKey(trx, company.id, { kind: 'publishable', origins: [page], leadTypes: ['booking'] }, 'admin')
        ).secret;
      });
      // The villa takes a 20% deposit on the stay page while its dates are held.
      await sql`update holiday_home_terms set booking_deposit_percent = 20 where listing_id =
        (select id from listings where company_id = ${companyId}::uuid and slug_en = ${villa})`.execute(db.db);
      await db.db
        .insertInto('admin_tokens')
        .values({ token_hash: await sha256(adminToken) })
        .execute();
    },
  });
  ({ mf, handle } = workerd);
});

afterAll(async () => {
  await workerd?.close();
  await stripe?.close();
});

const admin = () => workerAdminClient(() => mf, 'admin', host, adminToken);
const leases = () => workerClient(() => mf, 'leases', { host, serverKey });
const stay = () => workerClient(() => mf, 'stay', { host, publishableKey, headers: { Origin: page } });

/** A request to one Worker (Miniflare keeps the URL, so the Host is the company's); redirects are answered, not followed. */
async function call(
  worker: string,
  path: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
) {
  if (!mf) throw new Error('Miniflare is not running');
  return (await mf.getWorker(worker)).fetch(`http://${host}${path}`, { ...init, redirect: 'manual' });
}

/** The first rent payment still due of the demo's leases. */
async function dueRentPayment(): Promise<string> {
  if (!handle) throw new Error('no database');
  const row = await handle.db
    .selectFrom('rent_payments')
    .select('id')
    .where('company_id', '=', companyId)
    .where('status', '=', 'due')
    .orderBy('due_on')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Stripe's delivery of an event about a session, signed with `secret`, to the payments Worker's receiver. */
function deliver(sessionId: string, secret = webhookSecret) {
  const now = new Date();
  const event = stripe.event('checkout.session.completed', sessionId, now);
  // raw: a provider's delivery, its bytes exactly as signed (the receiver verifies them)
  return call('payments', `/api/v1/payments/webhooks/${accountId}`, {
    method: 'POST',
    body: event.body,
    headers: { 'Stripe-Signature': stripe.sign(event.body, secret, now), 'Content-Type': 'application/json' },
  });
}

describe('payments in the built Workers (workerd)', () => {
  it('connects the company’s Stripe account through the admin API, its secrets sealed', async () => {
    const { data, error, response } = await admin().POST('/admin/v1/companies/{company_id}/payment-accounts', {
      params: { path: { company_id: companyId } },
      body: {
        provider: 'stripe',
        currency: 'AED',
        api_key: `sk_test_${randomToken(24)}`,
        webhook_secret: webhookSecret,
      } as never,
    });
    expect(response.status, JSON.stringify(error)).toBe(201);
    accountId = data?.account_id as string;
    const stored = await handle?.db
      .selectFrom('payment_accounts')
      .select(['api_key_jwe', 'webhook_secret_jwe'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(stored?.webhook_secret_jwe).not.toContain(webhookSecret);
  });

  it('makes a rent payment’s link at Stripe, settles it by Stripe’s signed webhook, refuses a forged one', async () => {
    const due = await dueRentPayment();
    const link = await leases().POST('/api/v1/rent-payments/{payment_id}/payment-link', {
      params: { path: { payment_id: due } },
      body: { return_url: `${site}/paid` },
    });
    expect(link.response.status, JSON.stringify(link.error)).toBe(201);
    expect(link.data?.url.startsWith(`${stripe.url}/c/pay/`)).toBe(true);
    // The Worker itself asked the stand-in (its own fetch to STRIPE_API_BASE), with our payment's id as the key.
    const created = stripe.requests.filter((r) => r.path === '/v1/checkout/sessions');
    expect(created.at(-1)?.headers['idempotency-key']).toBe(link.data?.payment);
    const payment = await handle?.db
      .selectFrom('payments')
      .selectAll()
      .where('id', '=', link.data?.payment as string)
      .executeTakeFirstOrThrow();
    if (!payment) throw new Error('no payment');
    stripe.pay(payment.checkout_id);

    const forged = await deliver(payment.checkout_id, `whsec_${randomToken(32)}`);
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { code: string }).code).toBe('signature_invalid');
    expect(
      (await leases().GET('/api/v1/rent-payments/{payment_id}', { params: { path: { payment_id: due } } })).data?.status,
    ).toBe('due');

    const settled = await deliver(payment.checkout_id);
    expect(settled.status, await settled.clone().text()).toBe(200);
    expect(await settled.json()).toMatchObject({ acted: true, status: 'succeeded', payment: payment.id });
    const rent = await leases().GET('/api/v1/rent-payments/{payment_id}', { params: { path: { payment_id: due } } });
    expect(rent.data).toMatchObject({ status: 'received' });
    expect(rent.data?.booked_on).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(stripe.problems).toEqual([]);
  });

  it('answers the stay page’s pay button with 303 to the stand-in’s page', async () => {
    const arrival = new Date(Date.now() + 90 * 86_400_000).toISOString().slice(0, 10);
    const departure = new Date(Date.now() + 93 * 86_400_000).toISOString().slice(0, 10);
    const booked = await stay().POST('/api/v1/bookings', {
      body: {
        listing: villa,
        check_in: arrival,
        check_out: departure,
        guests: 2,
        name: 'Layla Guest',
        email: `layla.${suffix}@example.com`,
        consent: true,
        consent_version: '2026-01',
        challenge: developmentToken,
        website: '',
      } as never,
    });
    expect(booked.response.status, JSON.stringify(booked.error)).toBe(201);
    const stayPath = new URL((booked.data as { stay_url: string }).stay_url).pathname;
    // raw: the stay page's form posts to a page action (no key, no body), as a browser does
    const res = await call('stay', `${stayPath}/payment`, { method: 'POST' });
    expect(res.status, await res.clone().text()).toBe(303);
    const location = res.headers.get('location') ?? '';
    expect(location.startsWith(`${stripe.url}/c/pay/cs_`)).toBe(true);
    // The stand-in's page shows the deposit (20% of the stay) to the guest.
    const hosted = await fetch(location);
    expect(hosted.status).toBe(200);
    expect(await hosted.text()).toMatch(/data-amount>AED \d+\.\d{2}</);
    expect(stripe.problems).toEqual([]);
  });
});

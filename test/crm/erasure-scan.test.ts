import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../lib/crypto';
import { developmentToken } from '../../lib/spam-check';
import { bookingBody, type Ctx, plainTerms as plainBookingTerms, postBooking, stays } from '../stay/support';
import { listingAnswers } from '../forms/support';
import {
  adReferral,
  deliver,
  inboundChannels,
  metaAppSecret,
  metaSignature,
  propertyFinderLead,
  propertyFinderSignature,
  whatsAppText,
} from '../forms/inbound-support';
import { startReceiver, subscribe } from '../webhooks/support';
import { demoPipelines } from '../../functions/pipelines/demo';
import { type AdminBody, type TestClient, testClient } from '../support/client';
import { world } from '../support/world';

/**
 * One person reaches the API through every route that stores personal data, each value carrying a marker; after
 * their erasure through the admin API, no marker may be left in any column of any table: a table or column added
 * later that keeps personal data fails here until erasure reaches it.
 */
let w: Awaited<ReturnType<typeof world>>;
let ctx: Ctx;
/** The world's every-scope key; its writes carry an Idempotency-Key, so their kept answers (which hold what was sent) are scanned too. */
let c: TestClient;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  // A development workspace (its webhooks may go to loopback) with bookings on; the world's key has every scope. A
  // database of the file's own: tables without a company's column are scanned whole, every company's rows of them
  // (on the shared one that was every other file's rows too, 68 s of a CI PGlite pass against 7 s alone).
  w = await world({ environment: 'development', ownDatabase: true });
  ctx = { api: w.api, company: w.company, pk: await w.publishableKey(['booking']) };
  c = testClient(w.api, { host: w.company.host, serverKey: w.key.secret });
  c.use({
    onRequest({ request }) {
      if (request.method !== 'GET') request.headers.set('Idempotency-Key', crypto.randomUUID());
      return request;
    },
  });
  // Deliveries exist for the person's events (a development workspace may send to loopback).
  receiver = await startReceiver();
  const subscribed = await subscribe(w.api, w.company.id, { url: `${receiver.url}/hooks`, description: 'erasure scan' });
  expect(subscribed.id).toEqual(expect.any(String));
});
afterAll(async () => {
  await receiver?.close();
  await ctx?.api.close();
});

/** A typed call's answer, checked to have `status` (201 unless said): its body. */
async function created<Data>(res: { data?: Data; error?: unknown; response: Response }, status = 201): Promise<Data> {
  expect(res.response.status, JSON.stringify(res.error)).toBe(status);
  return res.data as Data;
}
const ref = (reference: string) => ({ params: { path: { reference } } });
const payment = (payment_id: string) => ({ params: { path: { payment_id } } });
/** The admin API's path parameters about the world's company and one record. */
const ofCompany = <P extends Record<string, string>>(more: P) => ({ params: { path: { company_id: w.company.id, ...more } } });

/** The person's values: each one unique to this run, so finding it anywhere means it was not erased. */
function personValues() {
  const m = `zq${randomToken(10).toLowerCase()}`;
  const hex = () => Math.floor(0x1000 + Math.random() * 0xefff).toString(16);
  return {
    m,
    email: `${m}@example.com`,
    // Stored in E.164: the digits are the marker.
    phone: `+97150${String(Math.floor(1_000_000 + Math.random() * 8_999_999))}`,
    // The browser's address, kept as the consent's address.
    address: `2001:db8:${hex()}:${hex()}::7`,
  };
}

/** Every column of every table of the public schema holding one of `needles` (as text), as "table.column". */
async function columnsHolding(needles: string[]): Promise<string[]> {
  const columns = await sql<{ table_name: string; column_name: string; data_type: string }>`
    select c.table_name, c.column_name, c.data_type
    from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = 'public' and t.table_type = 'BASE TABLE'
    order by c.table_name, c.ordinal_position
  `.execute(ctx.api.db);
  const tables = new Map<string, string[]>();
  /** The tables with a company's rows (`company_id uuid`): only this company's are scanned (the database is shared). */
  const ofCompanies = new Set<string>();
  for (const { table_name, column_name, data_type } of columns.rows) {
    tables.set(table_name, [...(tables.get(table_name) ?? []), column_name]);
    if (column_name === 'company_id' && data_type === 'uuid') ofCompanies.add(table_name);
  }
  // The scan must see the tables that hold people, or it proves nothing.
  for (const table of ['contacts', 'leads', 'bookings', 'activities', 'tasks', 'events', 'audit_log', 'webhook_deliveries']) {
    expect(tables.has(table), table).toBe(true);
  }
  const patterns = needles.map((n) => `%${n.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`);
  const found: string[] = [];
  for (const [table, names] of tables) {
    const counts = names.map((name) => sql`count(*) filter (where ${sql.ref(name)}::text ilike any(${patterns}))`.as(name));
    // A table of companies' rows is scanned for this company's only (the others' are other test files' people, and the
    // PostgreSQL run's database holds every file's): the person reached the API through this company's hosts and keys.
    const mine = ofCompanies.has(table) ? sql`where company_id = ${ctx.company.id}::uuid` : sql``;
    const row = (
      await sql<Record<string, string>>`select ${sql.join(counts)} from ${sql.table(table)} ${mine}`.execute(ctx.api.db)
    ).rows[0];
    for (const name of names) if (Number(row?.[name]) > 0) found.push(`${table}.${name}`);
  }
  return found;
}

const identity = 'kept: the record itself, so clients find it (updated_since, webhooks) and erase their copies';
const figures = 'kept: the contract’s and the accounts’ figures, days and states; they say nothing of who the person is';
const link = 'kept: a link (the erased contact, the company’s home or member, another lease), not a value of the person';
const stamp = 'kept: when the record changed (the sync order), not who the person is';
/**
 * What erasure does with every column of a lease, its notices and its payments (issue 21): emptied where it can name
 * or identify the person, kept, with the reason, otherwise (docs/api-reference.md, "Erasure"). A column added later
 * fails below until it is placed here.
 */
/** Each of the space-separated columns with one reason. */
const each = (columns: string, reason: string) => Object.fromEntries(columns.split(' ').map((c) => [c, reason]));
const leaseColumns: Record<string, Record<string, string>> = {
  leases: {
    notes: 'emptied: free text, may name them',
    registration: 'emptied: the tenancy registry files this number under the parties’ names (an Ejari number)',
    renewal_terms: 'emptied: free text, may name them',
    deposit_reason: 'emptied to "(erased)": free text (a deduction always states a reason, so not null)',
    ...each('id company_id reference', identity),
    ...each('listing_id renter_id landlord_id renews_id handler_id', link),
    ...each('status starts_on ends_on rent_amount rent_period deposit_amount notice_days schedule_count', figures),
    ...each('fee_kind fee_value activated_at ended_on deposit_outcome deposit_deductions tax_category', figures),
    warnings: 'kept: codes and messages the platform wrote from the figures (rates, days, amounts)',
    ...each('version created_at updated_at', stamp),
  },
  lease_notices: {
    text: 'emptied: free text, may name them',
    ...each('id company_id', identity),
    lease_id: link,
    ...each('given_on given_by intent vacate_on proposed_rent', figures),
    recorded_at: stamp,
  },
  rent_payments: {
    notes: 'emptied: free text, may name them',
    cheque_number: 'emptied: with its bank, it points at the drawer’s bank account',
    cheque_bank: 'emptied: goes with the cheque’s number (both or neither); free text',
    ...each('id company_id', identity),
    ...each('lease_id replaces_id mandate_id', link),
    ...each('status due_on amount booked_on fee_amount bounced_on received_at bounced_at cancelled_at overdue_at', figures),
    ...each('tax_category tax_rate net_amount vat_amount fee_tax_category fee_tax_rate fee_net_amount fee_vat_amount', figures),
    rent_vat_accounted_by: figures,
    ...each('version created_at updated_at', stamp),
  },
  rent_mandates: {
    account_holder: 'emptied: names who the bank debits',
    iban_jwe: 'emptied: the sealed IBAN identifies their bank account (the value itself is removed)',
    iban_last4: 'kept: four characters identify no account; they tell staff which account collected',
    ...each('id company_id mandate_reference', identity),
    lease_id: link,
    ...each('bank_name bank_code max_amount starts_on ends_on status activated_at cancelled_at rejected_at expired_at', figures),
    ...each('version created_at updated_at', stamp),
  },
};

describe('erasure of a lease’s party', () => {
  it('places every column of a lease, its notices and its payments: emptied, or kept with its reason', async () => {
    for (const [table, placed] of Object.entries(leaseColumns)) {
      const { rows } = await sql<{ column_name: string }>`
        select column_name from information_schema.columns where table_schema = 'public' and table_name = ${table}
        order by column_name`.execute(ctx.api.db);
      expect(Object.keys(placed).sort(), table).toEqual(rows.map((r) => r.column_name));
    }
  });
});

describe('erasure reaches every table', () => {
  it('leaves none of what the person sent, through any route, in any column of any table', async () => {
    const v = personValues();
    const { m } = v;
    const person = await created(
      await c.POST('/api/v1/contacts', { body: { name: `Name ${m}`, email: v.email, phone: v.phone, language: 'ar' } }),
    );
    const server = person.reference;
    await created(await c.PATCH('/api/v1/contacts/{reference}', { ...ref(server), body: { name: `Renamed ${m}` } }), 200);

    // An enquiry from the company's server, and a listing request from the visitor's browser.
    const enquiry = await created(
      await c.POST('/api/v1/leads', {
        body: {
          consent: true,
          consent_version: '2026-01',
          name: `Name ${m}`,
          email: v.email,
          phone: v.phone,
          language: 'ar',
          message: `Server message ${m}`,
          page: `https://www.example.com/${m}/enquiry`,
          details: { budget: `Budget ${m}`, remarks: [`Remark ${m}`, 3] },
        } as never,
      }),
    );
    expect((enquiry as { person?: string }).person).toBe(server);
    const forms = await w.formClient(['enquiry', 'listing_request', 'booking']);
    const form = await created(
      await forms.POST('/api/v1/leads', {
        headers: { 'x-test-client-address': v.address },
        body: {
          consent: true,
          consent_version: '2026-01',
          name: `Form ${m}`,
          email: v.email,
          phone: v.phone,
          message: `Form message ${m}`,
          page: `https://www.example.com/${m}/sell`,
          service: 'sell-my-property',
          details: { ...listingAnswers, remarks: `Answer ${m}` },
          challenge: developmentToken,
          website: '',
        } as never,
      }),
    );
    const drafted = await w.adminClient.POST(
      '/admin/v1/companies/{company_id}/leads/{reference}/draft-listing',
      ofCompany({ reference: form.reference }),
    );
    expect(drafted.response.status, JSON.stringify(drafted.error)).toBe(201);

    // A booking request from the browser, with the guest's message.
    const home = await w.holidayHome(plainBookingTerms);
    const [checkIn, checkOut] = stays(30)();
    const guest = { name: `Guest ${m}`, email: v.email, phone: v.phone, language: 'ar', message: `Booking message ${m}` };
    const booking = await created(
      await postBooking(ctx, bookingBody(home, checkIn as string, checkOut as string, guest), { clientAddress: v.address }),
    );

    // Their enquiries through the inbound channels: a WhatsApp message from their number (with an ad's referral) and its
    // conversation's next message (an activity), a Property Finder lead with their email. The sources' message ids are
    // kept after erasure, as external ids are: they are the sources' opaque ids, not the person's.
    const channels = inboundChannels(w.api, w.company.id);
    const whatsApp = await channels.create({ kind: 'whatsapp', secret: metaAppSecret });
    const waPath = new URL(whatsApp.json.url).pathname;
    const waFrom = v.phone.slice(1);
    for (const [i, text] of [`WhatsApp ${m}`, `And again ${m}`].entries()) {
      const body = whatsAppText(waFrom, `wamid.scan.${randomToken(12)}.${i}`, text, new Date(), {
        referral: { ...adReferral, body: `Ad seen by ${m}` },
      }).replace('Layla Haddad', `Profile ${m}`);
      const res = await deliver(w, waPath, body, { 'X-Hub-Signature-256': metaSignature(body) });
      expect(res.json.leads[0], res.text).toBeDefined();
    }
    const portal = await channels.create({ kind: 'propertyfinder' });
    const pf = propertyFinderLead(`scan${randomToken(12)}`, 'email', { name: `Portal ${m}`, email: v.email }, `ref-${m}`);
    const pfRes = await deliver(w, new URL(portal.json.url).pathname, pf, {
      'X-Signature': propertyFinderSignature(pf, portal.json.secret),
    });
    expect(pfRes.json.recorded, pfRes.text).toBe(1);

    // Staff's follow-ups about the person and about their leads, and the next action of a lead.
    const linked = [{ person: server }, { lead: enquiry.reference }, { lead: form.reference }];
    for (const [i, link] of linked.entries()) {
      const ids = { source: 'crm', external_id: `scan-${randomToken(8)}-${i}` };
      await created(await c.POST('/api/v1/activities', { body: { type: 'note', ...ids, ...link, body: `Note ${m}` } }));
      const task = await created(await c.POST('/api/v1/tasks', { body: { title: `Task ${m}`, ...ids, ...link } }));
      const taskPath = { params: { path: { task_id: task.task_id } } };
      await created(await c.PATCH('/api/v1/tasks/{task_id}', { ...taskPath, body: { title: `Task again ${m}` } }), 200);
    }
    const due = new Date(Date.now() + 86_400_000).toISOString();
    const nextAction = { next_action: { text: `Next ${m}`, due_at: due } };
    await created(await c.PATCH('/api/v1/leads/{reference}', { ...ref(enquiry.reference), body: nextAction }), 200);
    // A lease they rent, with notes, its registration, renewal terms, a notice, and two post-dated cheques with notes
    // (one of them bounced: it never changes otherwise).
    const landlord = await created(
      await c.POST('/api/v1/contacts', { body: { email: `landlord.${randomToken(6)}@example.com` } as never }),
    );
    const cheque = (n: number) => ({ number: `${m}-${n}`, bank: `Bank of ${m}` });
    /** A lease of theirs from the landlord above, at 12000 a year. */
    const theirLease = (fields: Record<string, unknown>) =>
      c.POST('/api/v1/leases', {
        body: { renter: server, landlord: landlord.reference, rent: { amount: '12000', period: 'year' }, ...fields } as never,
      });
    const lease = await created(
      await theirLease({
        home: 'marina-gate-1br-furnished',
        term: { start: '2027-01-01', end: '2027-12-31' },
        schedule: {
          rows: [
            { due_on: '2027-01-01', amount: '6000', cheque: cheque(1) },
            { due_on: '2027-07-01', amount: '6000', cheque: cheque(2) },
          ],
        },
        registration: `EJ-${m}`,
        renewal_terms: `Renews for ${m} at the same rent`,
        notes: `Lease note ${m}`,
      }),
    );
    // A lease of theirs that ended with deductions from the deposit, and why.
    const ended = await created(
      await theirLease({
        home: 'jvc-2br-townhouse',
        term: { start: '2026-01-01', end: '2026-12-31' },
        deposit: '1000',
        schedule: { payments: 1 },
      }),
    );
    await created(await c.POST('/api/v1/leases/{reference}/activate', ref(ended.reference)), 200);
    const deposit = { outcome: 'returned_with_deductions' as const, deductions: '100', reason: `Stains left by ${m}` };
    const end = { ended_on: '2026-12-31', deposit };
    await created(await c.POST('/api/v1/leases/{reference}/end', { ...ref(ended.reference), body: end }), 200);
    await created(await c.POST('/api/v1/leases/{reference}/activate', ref(lease.reference)), 200);
    const notice = { given_on: '2027-06-01', by: 'renter' as const, intent: 'vacate' as const, text: `Notice ${m}` };
    await created(await c.POST('/api/v1/leases/{reference}/notice', { ...ref(lease.reference), body: notice }), 200);
    const [bounced, paid] = lease.schedule.rows.map((row) => row.payment_id) as [string, string];
    const changePayment = (id: string, body: Record<string, unknown>) =>
      c.PATCH('/api/v1/rent-payments/{payment_id}', { ...payment(id), body: body as never });
    await created(await changePayment(bounced, { notes: `Cheque of ${m}` }), 200);
    await created(await changePayment(bounced, { status: 'bounced' }), 200);
    await created(await changePayment(paid, { notes: `Paid by ${m}`, status: 'received' }), 200);
    // A direct-debit mandate of theirs on the lease (issue 34): the account holder and the sealed IBAN.
    const mandate = await created(
      await c.POST('/api/v1/leases/{reference}/rent-mandates', {
        ...ref(lease.reference),
        body: {
          mandate_reference: `DDA-${crypto.randomUUID().slice(0, 8)}`,
          bank: { name: 'Emirates NBD', code: '026' },
          account_holder: `Holder ${m}`,
          iban: 'AE070331234567890123456',
          max_amount: '6000',
          starts_on: '2027-01-01',
          ends_on: '2027-12-31',
        },
      }),
    );
    // Maintenance on their lease: a job (its problem, approval note, what was done), a charge, a cancelled job's reason
    // and a move-in inspection's notes.
    const job = await created(
      await c.POST('/api/v1/jobs', {
        body: { home: 'marina-gate-1br-furnished', category: 'plumbing', problem: `Leak at ${m}'s` } as never,
      }),
    );
    const approval = { decision: 'requested' as const, note: `Ask ${m}` };
    await created(await c.POST('/api/v1/jobs/{reference}/approval', { ...ref(job.reference), body: approval }), 200);
    const done = { work_done: `Fixed for ${m}` };
    await created(await c.POST('/api/v1/jobs/{reference}/complete', { ...ref(job.reference), body: done }), 200);
    const charge = { job: job.reference, cost: '100', payer: 'renter' as const, description: `Tap ${m}` };
    await created(await c.POST('/api/v1/job-charges', { body: charge }));
    const dropped = await created(
      await c.POST('/api/v1/jobs', {
        body: { home: 'marina-gate-1br-furnished', category: 'general', problem: 'Noise' } as never,
      }),
    );
    const reason = { reason: `${m} moved out` };
    await created(await c.POST('/api/v1/jobs/{reference}/cancel', { ...ref(dropped.reference), body: reason }), 200);
    const inspection = {
      kind: 'move_in',
      lease: lease.reference,
      planned_on: '2027-01-01',
      notes: `Keys to ${m}`,
      areas: [{ name: 'Kitchen', condition: 'good', notes: `Scratch seen by ${m}` }],
    };
    await created(await c.POST('/api/v1/inspections', { body: inspection as never }));
    // A deal with them (its title and lost reason) and a viewing's feedback.
    const sales = demoPipelines.find((pipeline) => pipeline.key === 'sales');
    const pipeline = await w.adminClient.POST('/admin/v1/companies/{company_id}/pipelines', {
      ...ofCompany({}),
      body: sales as AdminBody<'createCompanyPipeline'>,
    });
    expect(pipeline.response.status).toBe(201);
    const deal = await created(await c.POST('/api/v1/deals', { body: { person: server, title: `Flat for ${m}` } }));
    const viewing = { deal: deal.reference, home: 'marina-gate-1br-furnished', time: '2030-01-01T10:00:00Z' };
    const shown = await created(await c.POST('/api/v1/viewings', { body: viewing }));
    const feedback = { status: 'done' as const, feedback: `Liked it, ${m}` };
    await created(await c.PATCH('/api/v1/viewings/{reference}', { ...ref(shown.reference), body: feedback }), 200);
    const lost = { stage: 'lost', reason: `Lost ${m}` };
    await created(await c.POST('/api/v1/deals/{reference}/move', { ...ref(deal.reference), body: lost }), 200);
    // Reads with a server key are audited (references only).
    await created(await c.GET('/api/v1/contacts/{reference}', ref(server)), 200);
    await created(await c.GET('/api/v1/leads/{reference}', ref(form.reference)), 200);
    // A search writes the person's search name (migration 0050): erasure must empty it too.
    await created(await c.GET('/api/v1/contacts', { params: { query: { q: `Renamed ${m}` } } }), 200);

    // The encrypted details are a value of their own: erasure must remove the blob, not only what it decrypts to.
    const blobs = await ctx.api.db
      .selectFrom('leads')
      .select('details_jwe')
      .where('reference', 'in', [enquiry.reference, form.reference])
      .execute();
    // So are the kept answers of Idempotency-Keys (encrypted like details).
    const kept = await ctx.api.db
      .selectFrom('idempotency_keys')
      .select('body')
      .where('company_id', '=', ctx.company.id)
      .execute();
    expect(kept.length).toBeGreaterThan(5);
    const sealedIban = await ctx.api.db
      .selectFrom('rent_mandates')
      .select('iban_jwe')
      .where('id', '=', mandate.mandate_id)
      .executeTakeFirstOrThrow();
    const needles = [
      m,
      v.email,
      v.phone,
      v.address,
      sealedIban.iban_jwe as string,
      ...blobs.map((b) => b.details_jwe as string),
      ...kept.map((k) => k.body as string),
    ];
    expect(blobs.every((b) => typeof b.details_jwe === 'string' && b.details_jwe.length > 40)).toBe(true);
    const before = await columnsHolding(needles);
    for (const column of [
      'contacts.name',
      'contacts.search_name',
      'contacts.email',
      'contacts.phone',
      'leads.message',
      'leads.page',
    ]) {
      expect(before).toContain(column);
    }
    expect(before).toEqual(
      expect.arrayContaining([
        'leads.details_jwe',
        'leads.consent_address',
        'leads.next_action',
        'bookings.message',
        'idempotency_keys.body',
      ]),
    );
    expect(before).toEqual(expect.arrayContaining(['bookings.consent_address', 'activities.body', 'tasks.title']));
    expect(before).toEqual(
      expect.arrayContaining([
        'leads.sent_name',
        'leads.sent_email',
        'leads.sent_listing',
        'leads.referral',
        'bookings.sent_name',
      ]),
    );
    expect(before).toEqual(expect.arrayContaining(['leases.notes', 'lease_notices.text', 'rent_payments.notes']));
    expect(before).toEqual(
      expect.arrayContaining([
        'leases.registration',
        'leases.renewal_terms',
        'leases.deposit_reason',
        'rent_payments.cheque_number',
        'rent_payments.cheque_bank',
        'rent_mandates.account_holder',
        'rent_mandates.iban_jwe',
      ]),
    );
    expect(before).toEqual(expect.arrayContaining(['deals.title', 'deals.close_reason', 'viewings.feedback']));
    expect(before).toEqual(
      expect.arrayContaining([
        'jobs.problem',
        'jobs.work_done',
        'jobs.approval_note',
        'jobs.cancel_reason',
        'job_charges.description',
        'inspections.notes',
        'inspections.areas',
      ]),
    );

    // The outbox fanned the person's events out to the subscription: deliveries are scanned too.
    const deliveries = await ctx.api.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('company_id', '=', ctx.company.id)
      .executeTakeFirstOrThrow();
    expect(Number(deliveries.n)).toBeGreaterThan(0);

    const erased = await w.adminClient.POST(
      '/admin/v1/companies/{company_id}/contacts/{reference}/erase',
      ofCompany({ reference: server }),
    );
    expect(erased.data).toEqual({ reference: server, erased: true, already_erased: false });

    expect(await columnsHolding(needles)).toEqual([]);

    // What the API shows afterwards: empty personal fields, details gone (not only unreadable).
    for (const reference of [enquiry.reference, form.reference]) {
      const lead = (await c.GET('/api/v1/leads/{reference}', ref(reference))).data;
      expect(lead).toMatchObject({ erased: true, message: null, page: null, details: null, next_action: null, language: null });
    }
    const adminBooking = (
      await w.adminClient.GET(
        '/admin/v1/companies/{company_id}/bookings/{reference}',
        ofCompany({ reference: booking.reference }),
      )
    ).data;
    expect(adminBooking).toMatchObject({
      person: server,
      message: null,
      language: null,
      consent: { address: null },
      sent: { name: null, email: null, phone: null },
    });
    const readLease = async (reference: string) => (await c.GET('/api/v1/leases/{reference}', ref(reference))).data;
    const leaseAfter = await readLease(lease.reference);
    expect(leaseAfter).toMatchObject({ renter: server, notes: null, registration: null, status: 'active' });
    expect(leaseAfter?.renewal).toMatchObject({ terms: null });
    expect(await readLease(ended.reference)).toMatchObject({
      status: 'ended',
      deposit: { amount: '1000.00', outcome: 'returned_with_deductions', deductions: '100.00', reason: '(erased)' },
    });
    expect(leaseAfter?.notice.given).toEqual([expect.objectContaining({ intent: 'vacate', text: null })]);
    const readPayment = async (id: string) => (await c.GET('/api/v1/rent-payments/{payment_id}', payment(id))).data;
    expect(await readPayment(bounced)).toMatchObject({
      status: 'bounced',
      notes: null,
      cheque: null,
      amount: '6000.00',
    });
    expect(await readPayment(paid)).toMatchObject({ status: 'received', notes: null, cheque: null });
    const readMandate = await c.GET('/api/v1/rent-mandates/{mandate_id}', {
      params: { path: { mandate_id: mandate.mandate_id } },
    });
    expect(readMandate.data).toMatchObject({
      account_holder: null,
      iban_last4: '3456',
      status: 'pending',
      max_amount: '6000.00',
    });
    const notes = (await c.GET('/api/v1/activities', { params: { query: { page_size: 100 } } })).data?.results ?? [];
    // Staff's three notes about them, and the WhatsApp conversation's second message.
    expect(notes.filter((a) => a.person === server).map((a) => a.body)).toEqual([null, null, null, null]);
  }, 180_000); // A person through every group's routes, then a scan of every column of every table: minutes on a loaded CI.
});

import { type Folder, json, set } from './collection-steps';

/** The back office's steps: a lease and its rent, a maintenance job and its charge, a sale, statements, portals. */
const serverKeyHeader = "{ key: 'Authorization', value: 'Bearer ' + pm.variables.get('serverKey') }";

export const leases: Folder = {
  name: 'Leases',
  description:
    'A lease from its draft to its renewal: activated, its first payment received and bounced, then replaced; a direct-debit mandate; notice, end, renewal.',
  steps: [
    {
      operation: 'createLease',
      expect: 201,
      before: [
        '// A year from yesterday (begun in every time zone), on a lease listing no active lease holds (activation',
        '// refuses a second active lease of a home).',
        'const start = new Date(Date.now() - 864e5);',
        'const end = new Date(start);',
        'end.setUTCFullYear(end.getUTCFullYear() + 1);',
        'end.setUTCDate(end.getUTCDate() - 1);',
        set('leaseStart', 'start.toISOString().slice(0, 10)'),
        set('leaseEnd', 'end.toISOString().slice(0, 10)'),
        "const base = pm.variables.get('baseUrl');",
        "pm.sendRequest({ url: base + '/api/v1/listings?type=lease&page_size=100' }, (error, listings) => {",
        '  if (error) throw error;',
        `  const active = { url: base + '/api/v1/leases?status=active&page_size=100', header: [${serverKeyHeader}] };`,
        '  pm.sendRequest(active, (failed, leases) => {',
        '    if (failed) throw failed;',
        '    const held = leases.json().results.map((lease) => lease.home);',
        '    const free = listings.json().results.map((listing) => listing.slug.en).find((slug) => !held.includes(slug));',
        `    ${set('leaseHome', "free || ''")}`,
        '  });',
        '});',
      ],
      body: {
        home: '{{leaseHome}}',
        renter: '{{contacts_reference}}',
        landlord: '{{landlordReference}}',
        term: { start: '{{leaseStart}}', end: '{{leaseEnd}}' },
        rent: { amount: '120000.00', period: 'year' },
        deposit: '6000.00',
        schedule: { payments: 4 },
        external: { source: 'yardi', id: 'lease-{{runId}}' },
      },
      after: [
        json,
        '// Its first payment, received and then bounced below, and replaced.',
        set('payment_id', 'answer.schedule.rows[0].payment_id'),
        set('paymentAmount', 'answer.schedule.rows[0].amount'),
      ],
    },
    { operation: 'listLeases', expect: 200 },
    { operation: 'getLease', expect: 200 },
    { operation: 'updateLease', expect: 200 },
    { operation: 'activateLease', expect: 200 },
    { operation: 'listRentPayments', expect: 200, query: { lease: '{{leases_reference}}' } },
    { operation: 'getRentPayment', expect: 200 },
    {
      operation: 'createRentPaymentLink',
      expect: 201,
      body: { return_url: 'https://www.example.com/rent/paid', email: 'renter.{{runId}}@example.com' },
      after: [json, "pm.test('names the payment', () => pm.expect(answer.payment).to.match(/^pay_/));"],
    },
    { operation: 'updateRentPayment', expect: 200 },
    {
      operation: 'updateRentPayment',
      name: 'The received cheque bounces',
      expect: 200,
      body: { status: 'bounced' },
      after: [json, "pm.test('is bounced', () => pm.expect(answer.status).to.equal('bounced'));"],
    },
    {
      operation: 'createRentPayment',
      expect: 201,
      body: {
        replaces: '{{payment_id}}',
        due_on: '{{in14Days}}',
        amount: '{{paymentAmount}}',
        cheque: { number: '000457', bank: 'Emirates NBD' },
      },
    },
    {
      operation: 'createRentMandate',
      name: 'A direct-debit mandate for the rent (the IBAN shown by its last four only)',
      expect: 201,
      body: {
        mandate_reference: 'DDA-{{runId}}',
        bank: { name: 'Emirates NBD', code: '026' },
        account_holder: 'Renter {{runId}}',
        iban: 'AE070331234567890123456',
        max_amount: '{{paymentAmount}}',
        starts_on: '{{leaseStart}}',
        ends_on: '{{leaseEnd}}',
      },
      after: [
        json,
        set('mandate_id', 'answer.mandate_id'),
        "pm.test('shows the IBAN by its last four only', () => pm.expect(answer.iban_last4).to.equal('3456'));",
      ],
    },
    { operation: 'listRentMandates', expect: 200, query: { lease: '{{leases_reference}}' } },
    { operation: 'getRentMandate', expect: 200 },
    {
      operation: 'updateRentMandate',
      name: 'The bank accepts the mandate',
      expect: 200,
      body: { status: 'active' },
      after: [json, "pm.test('is active', () => pm.expect(answer.status).to.equal('active'));"],
    },
    { operation: 'recordLeaseNotice', expect: 200, body: { by: 'renter', intent: 'renew', proposed_rent: '126000.00' } },
    {
      operation: 'endLease',
      expect: 200,
      body: { deposit: { outcome: 'returned_with_deductions', deductions: '1500.00', reason: 'Repainting' } },
    },
    { operation: 'renewLease', expect: 201 },
  ],
};

export const maintenance: Folder = {
  name: 'Maintenance',
  steps: [
    {
      operation: 'createJob',
      expect: 201,
      body: {
        home: 'marina-gate-1br-furnished',
        category: 'plumbing',
        priority: 'high',
        problem: 'The kitchen tap leaks under the sink.',
        estimate: '450.00',
        external: { source: 'helpdesk', id: 'ticket-{{runId}}' },
      },
    },
    { operation: 'listJobs', expect: 200 },
    { operation: 'getJob', expect: 200 },
    { operation: 'updateJob', expect: 200 },
    { operation: 'recordJobApproval', expect: 200 },
    { operation: 'scheduleJob', expect: 200, body: { day: '{{in14Days}}', window: { start: '09:00', end: '12:00' } } },
    { operation: 'completeJob', expect: 200 },
    {
      operation: 'createJob',
      name: 'A second job, to cancel',
      expect: 201,
      capture: false,
      body: {
        home: 'marina-gate-1br-furnished',
        category: 'electrical',
        problem: 'The hallway light flickers.',
        external: { source: 'helpdesk', id: 'ticket-{{runId}}-2' },
      },
      after: [json, set('jobToCancel', 'answer.reference')],
    },
    { operation: 'cancelJob', expect: 200, path: { reference: 'jobToCancel' } },
    { operation: 'createJobCharge', expect: 201, body: { job: '{{jobs_reference}}', cost: '450.00', payer: 'owner' } },
    { operation: 'listJobCharges', expect: 200 },
    { operation: 'getJobCharge', expect: 200 },
    { operation: 'updateJobCharge', expect: 200 },
    {
      operation: 'createContractor',
      expect: 201,
      body: {
        name: 'Gulf Cool Air Conditioning LLC',
        trades: ['air_conditioning'],
        email: 'jobs@gulfcool.example',
        phone: '+97145550100',
        external: { source: 'helpdesk', id: 'vendor-{{runId}}' },
      },
    },
    { operation: 'listContractors', expect: 200 },
    { operation: 'getContractor', expect: 200 },
    { operation: 'updateContractor', expect: 200 },
    {
      operation: 'createInspection',
      expect: 201,
      body: {
        kind: 'routine',
        home: 'marina-gate-1br-furnished',
        planned_on: '{{in30Days}}',
        areas: [{ name: 'Kitchen' }, { name: 'Bathroom', condition: 'fair', notes: 'Grout stained.' }],
        external: { source: 'helpdesk', id: 'inspection-{{runId}}' },
      },
    },
    { operation: 'listInspections', expect: 200 },
    { operation: 'getInspection', expect: 200 },
  ],
};

export const pipelines: Folder = {
  name: 'Pipelines',
  steps: [
    { operation: 'listPipelines', expect: 200 },
    {
      operation: 'createDeal',
      expect: 201,
      body: {
        pipeline: 'sales',
        person: { name: 'Sara Haddad', email: 'sara.{{runId}}@example.com' },
        title: 'Sara Haddad - 2BR Marina Gate',
        home: 'marina-gate-2br-sea-view',
        value: '2450000.00',
        external: { source: 'pipedrive', id: 'deal-{{runId}}' },
      },
    },
    { operation: 'listDeals', expect: 200 },
    { operation: 'getDeal', expect: 200 },
    { operation: 'updateDeal', expect: 200, body: { probability: 75, expected_close: '{{in90Days}}' } },
    { operation: 'moveDeal', expect: 200 },
    {
      operation: 'createViewing',
      expect: 201,
      body: {
        deal: '{{deals_reference}}',
        time: '{{in10Days}}T10:00:00Z',
        external: { source: 'calendly', id: 'booking-{{runId}}' },
      },
    },
    { operation: 'listViewings', expect: 200 },
    { operation: 'getViewing', expect: 200 },
    { operation: 'updateViewing', expect: 200, body: { time: '{{in11Days}}T15:30:00Z' } },
  ],
};

export const statements: Folder = {
  name: 'Statements',
  steps: [
    {
      operation: 'listOwnerStatementMonths',
      expect: 200,
      after: [
        json,
        '// The newest month with a statement, and its owner.',
        'const [row] = answer.results;',
        `if (row) { ${set('statementOwner', 'row.owner')} ${set('statementMonth', 'row.month')} }`,
      ],
    },
    { operation: 'getOwnerStatement', expect: 200, query: { owner: '{{statementOwner}}', month: '{{statementMonth}}' } },
    {
      operation: 'createOwnerStatementLink',
      expect: 201,
      body: { owner: '{{statementOwner}}', month: '{{statementMonth}}', language: 'ar' },
    },
    { operation: 'getJournalExport', expect: 200, query: { month: '{{statementMonth}}' } },
    { operation: 'getOwnerStatementsExport', expect: 200, query: { month: '{{statementMonth}}' } },
    // The month's Tourism Dirham of the homes DET classes (issue 37).
    { operation: 'getTourismDirhamMonth', expect: 200, query: { month: '{{statementMonth}}' } },
    {
      operation: 'listInvoices',
      expect: 200,
      after: [
        json,
        '// The demo company is registered for VAT: its newest document, read below.',
        set('number', 'answer.results[0].number'),
      ],
    },
    { operation: 'getInvoice', expect: 200 },
    // `{number}.xml`: the variable the list set for `{number}` (the suffix hides the resource's segment from the generator).
    { operation: 'getInvoiceXml', expect: 200, path: { number: 'invoices_number' } },
    { operation: 'getInvoicePage', expect: 200, query: { language: 'ar' } },
    {
      operation: 'receiveEinvoiceAnswer',
      expect: 200,
      headers: {
        'webhook-id': 'asp_{{runId}}',
        'webhook-timestamp': '{{nowSeconds}}',
        'webhook-signature': '{{einvoiceSignature}}',
      },
      body: { number: '{{number}}', status: 'accepted' },
      before: [
        '// As the provider signs: once, `npm run admin -- einvoicing set <company> --url U --secret whsec_…`; einvoiceSecret is that secret.',
        "const hash = require('crypto-js');",
        "const signed = pm.variables.replaceIn('asp_{{runId}}.{{nowSeconds}}.') + pm.variables.replaceIn(pm.request.body.raw);",
        "const key = hash.enc.Base64.parse(pm.variables.get('einvoiceSecret').replace(/^whsec_/, ''));",
        "pm.variables.set('einvoiceSignature', 'v1,' + hash.HmacSHA256(signed, key).toString(hash.enc.Base64));",
      ],
    },
  ],
};

export const portals: Folder = {
  name: 'Portals',
  description:
    'The feeds a company gives Property Finder and Bayut: set feedToken to the token in the URLs `portals feeds <company>` prints (admin command line).',
  steps: [
    { operation: 'getPropertyFinderFeed', expect: 200, path: { token: 'feedToken' } },
    { operation: 'getBayutFeed', expect: 200, path: { token: 'feedToken' } },
    { operation: 'listPortalChecks', expect: 200 },
  ],
};

export const payments: Folder = {
  name: 'Payments',
  description:
    "The payment provider's webhook receiver. Once, with the admin API: `POST /admin/v1/companies/{company_id}/payment-accounts` (provider stripe, the company's currency, a Stripe test key and the endpoint's signing secret); set paymentAccountId to the answer's `account_id` and paymentWebhookSecret to the signing secret. The event below names a session of no payment of the company: verified, answered, nothing changed.",
  steps: [
    {
      operation: 'receivePaymentWebhook',
      expect: 200,
      path: { account_id: 'paymentAccountId' },
      headers: { 'Stripe-Signature': '{{stripeSignature}}' },
      body: {
        id: 'evt_{{runId}}',
        object: 'event',
        type: 'checkout.session.completed',
        created: '{{nowSeconds}}',
        data: { object: { id: 'cs_test_{{runId}}', object: 'checkout.session' } },
      },
      before: [
        "// Stripe-Signature: t=<seconds>,v1=<hex HMAC-SHA256 of 't.body' with the endpoint's signing secret>.",
        "const hash = require('crypto-js');",
        "const t = pm.variables.replaceIn('{{nowSeconds}}');",
        'const body = pm.variables.replaceIn(pm.request.body.raw);',
        "pm.variables.set('stripeSignature', 't=' + t + ',v1=' + hash.HmacSHA256(t + '.' + body, pm.variables.get('paymentWebhookSecret')).toString(hash.enc.Hex));",
      ],
      after: [json, "pm.test('changes nothing', () => pm.expect(answer.acted).to.equal(false));"],
    },
  ],
};

export const events: Folder = {
  name: 'Events',
  description:
    'The company’s events of the last 30 days (newest first), the feed `npm run admin -- events listen` follows (oldest first, in order of commit: pass `next_cursor` back as `cursor`), and the audit log of a range of days as JSON lines (`format=csv` for CSV). The server key needs read:events and read:audit.',
  steps: [
    { operation: 'listEvents', expect: 200 },
    { operation: 'getEventsFeed', expect: 200 },
    { operation: 'getAuditLogExport', expect: 200, query: { from: '{{today}}', to: '{{today}}' } },
  ],
};

export const webhooks: Folder = {
  name: 'Webhooks',
  description:
    'An integration subscribes itself with its server key (read:webhooks, write:webhooks): the endpoint below takes only `webhook_endpoint.disabled`, so the run sends it nothing, and is deleted at the end.',
  steps: [
    {
      operation: 'createWebhookEndpoint',
      expect: 201,
      body: {
        url: 'https://hooks.example.com/{{runId}}',
        event_types: ['webhook_endpoint.disabled'],
        description: 'Postman run {{runId}}',
      },
    },
    { operation: 'listWebhookEndpoints', expect: 200 },
    { operation: 'getWebhookEndpoint', expect: 200 },
    { operation: 'updateWebhookEndpoint', expect: 200 },
    { operation: 'rotateWebhookEndpointSecret', expect: 200 },
    { operation: 'listWebhookEndpointDeliveries', expect: 200 },
    { operation: 'recoverWebhookEndpoint', expect: 200, body: { since: '{{nowIso}}' } },
    { operation: 'deleteWebhookEndpoint', expect: 204 },
  ],
};

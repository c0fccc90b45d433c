import { type Folder, hmac, json, set } from './collection-steps';

/** The front office's steps: the catalogue, a web enquiry worked in the CRM, the inbound sources, a booking. */
export const catalogue: Folder = {
  name: 'Catalogue',
  steps: [
    {
      operation: 'listListings',
      expect: 200,
      before: [
        '// A new run: the external ids, emails and phone numbers of its records are its own.',
        set('runId', 'Date.now().toString(36)'),
        'const digits = String(Date.now()).slice(-7); // a UAE mobile number of this run (055, 056)',
        set('runPhone', "'+97155' + digits"),
        set('whatsappFrom', "'97156' + digits"),
      ],
      after: [
        json,
        '// A holiday home of the page, for the Bookings folder.',
        "const home = answer.results.find((listing) => listing.listing_type === 'holiday_home');",
        `if (home) ${set('holidayHome', 'home.slug.en')}`,
      ],
    },
    { operation: 'listListingMapPoints', expect: 200 },
    { operation: 'getListing', expect: 200 },
    { operation: 'listAreas', expect: 200 },
    { operation: 'listFilters', expect: 200 },
    { operation: 'listTeamProfiles', expect: 200 },
    { operation: 'getSitemap', expect: 200 },
    { operation: 'listServices', expect: 200 },
    // The catalogue written by integrations (issue 38): a listing under the run's own id, published, then withdrawn.
    {
      operation: 'putListingByExternalId',
      expect: 201,
      before: [set('external_id', "'acme:listing-' + pm.variables.get('runId')")],
      body: {
        slug: { en: 'marina-view-{{runId}}', ar: 'اطلالة-المارينا-{{runId}}' },
        listing_type: 'lease',
        title: { en: 'Marina view, 2 bedrooms', ar: 'إطلالة على المارينا، غرفتان' },
        price: '120000.00',
        price_period: 'year',
        bedrooms: 2,
        city: 'dubai',
      },
    },
    { operation: 'publishListingByExternalId', expect: 200 },
    { operation: 'withdrawListingByExternalId', expect: 200 },
  ],
};

export const forms: Folder = {
  name: 'Forms',
  description:
    'An enquiry and a saved search from a web page: the publishable key with its origin. Its lead is read and worked in CRM, its saved search read and stopped there.',
  steps: [
    { operation: 'createLead', expect: 201 },
    { operation: 'createSavedSearch', expect: 201 },
  ],
};

export const crm: Folder = {
  name: 'CRM',
  steps: [
    {
      operation: 'createContact',
      expect: 201,
      body: { name: 'Layla Haddad', email: 'layla.{{runId}}@example.com', phone: '{{runPhone}}', language: 'ar' },
    },
    {
      operation: 'listContacts',
      expect: 200,
      after: [
        json,
        '// A landlord of the company (else another person), for the lease.',
        "const others = answer.results.filter((person) => person.reference !== pm.collectionVariables.get('contacts_reference'));",
        "const landlord = others.find((person) => person.roles.includes('landlord')) || others[0];",
        `if (landlord) ${set('landlordReference', 'landlord.reference')}`,
      ],
    },
    { operation: 'getContact', expect: 200 },
    { operation: 'updateContact', expect: 200, body: { language: 'en' } },
    { operation: 'listMembers', expect: 200 },
    { operation: 'listDepartments', expect: 200 },
    { operation: 'listLeads', expect: 200 },
    { operation: 'getLead', expect: 200 },
    { operation: 'updateLead', expect: 200, body: { status: 'contacted' } },
    { operation: 'listSavedSearches', expect: 200 },
    { operation: 'getSavedSearch', expect: 200 },
    { operation: 'listSavedSearchMatches', expect: 200 },
    { operation: 'stopSavedSearch', expect: 200 },
    {
      operation: 'createActivity',
      expect: 201,
      body: {
        type: 'note',
        source: 'hubspot',
        external_id: 'note-{{runId}}',
        lead: '{{leads_reference}}',
        body: 'Asked for a second viewing.',
      },
    },
    { operation: 'listActivities', expect: 200 },
    {
      operation: 'createTask',
      expect: 201,
      body: {
        title: 'Send the tenancy contract',
        source: 'hubspot',
        external_id: 'task-{{runId}}',
        due_on: '{{in7Days}}',
        lead: '{{leads_reference}}',
      },
    },
    { operation: 'listTasks', expect: 200 },
    { operation: 'getTask', expect: 200 },
    { operation: 'updateTask', expect: 200, body: { status: 'done' } },
  ],
};

export const inbound: Folder = {
  name: 'Inbound',
  description:
    'The receivers of the sources a company points at its own addresses, each signed as its source signs. Once, with the admin command line: `inbound add <company> --kind whatsapp --secret <app secret>`, `--kind propertyfinder`, `--kind signed --source bayut`; set whatsappToken, propertyFinderToken and signedToken to the token in each answer’s `url` (`…/inbound/<token>/…`), and whatsappAppSecret, whatsappVerifyToken, propertyFinderSecret and signedSecret to its secrets.',
  steps: [
    {
      operation: 'confirmWhatsAppSubscription',
      expect: 200,
      path: { token: 'whatsappToken' },
      query: { 'hub.mode': 'subscribe', 'hub.verify_token': '{{whatsappVerifyToken}}', 'hub.challenge': '{{runId}}' },
      after: [
        "pm.test('answers the challenge', () => pm.expect(pm.response.text()).to.equal(pm.collectionVariables.get('runId')));",
      ],
    },
    {
      operation: 'receiveWhatsAppMessages',
      expect: 200,
      path: { token: 'whatsappToken' },
      headers: { 'X-Hub-Signature-256': '{{whatsappSignature}}' },
      // A text message notification as Meta's `messages` webhook reference shows it.
      body: {
        object: 'whatsapp_business_account',
        entry: [
          {
            id: '102290129340398',
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { display_phone_number: '97145550100', phone_number_id: '106540352242922' },
                  contacts: [{ profile: { name: 'Omar Farouk' }, wa_id: '{{whatsappFrom}}' }],
                  messages: [
                    {
                      from: '{{whatsappFrom}}',
                      id: 'wamid.{{runId}}',
                      timestamp: '{{nowSeconds}}',
                      type: 'text',
                      text: { body: 'Is the two-bedroom in Marina Gate still available?' },
                    },
                  ],
                },
              },
            ],
          },
        ],
      },
      before: [
        "// Meta's X-Hub-Signature-256: sha256= and the hex HMAC-SHA256 of the raw body with the app secret.",
        ...hmac('whatsappSignature', 'whatsappAppSecret', 'sha256='),
      ],
      after: [json, "pm.test('records the message', () => pm.expect(answer.recorded + answer.repeated).to.equal(1));"],
    },
    {
      operation: 'receivePropertyFinderLeads',
      expect: 200,
      path: { token: 'propertyFinderToken' },
      headers: { 'X-Signature': '{{propertyFinderSignature}}' },
      // A `lead.created` event in the envelope of Property Finder's Enterprise API (Webhooks).
      body: {
        id: 'lead.created-{{runId}}',
        type: 'lead.created',
        timestamp: '{{nowIso}}',
        entity: { id: 'pf-{{runId}}', type: 'lead' },
        payload: {
          channel: 'email',
          status: 'sent',
          entityType: 'listing',
          publicProfile: { id: 10231 },
          listing: { id: '01K0YB4HEKM08V901DVJ5ATVYF', reference: '{{listings_slug}}' },
          responseLink: 'https://expert.propertyfinder.ae/leads/respond/abc',
          sender: { name: 'Huda Karim', contacts: [{ type: 'email', value: 'huda.{{runId}}@example.com' }] },
        },
      },
      before: [
        "// Property Finder's X-Signature: the hex HMAC-SHA256 of the payload with the subscription's secret.",
        ...hmac('propertyFinderSignature', 'propertyFinderSecret', ''),
      ],
      after: [json, "pm.test('records the lead', () => pm.expect(answer.recorded + answer.repeated).to.equal(1));"],
    },
    {
      operation: 'receiveSignedLeads',
      expect: 200,
      path: { token: 'signedToken' },
      headers: {
        'webhook-id': 'msg_{{runId}}',
        'webhook-timestamp': '{{nowSeconds}}',
        'webhook-signature': '{{signedSignature}}',
      },
      body: {
        type: 'lead.created',
        timestamp: '{{nowIso}}',
        data: {
          channel: 'call',
          name: 'Huda Karim',
          phone: '+971 52 888 1234',
          message: 'Called about the villa',
          listing: '{{holidayHome}}',
        },
      },
      before: [
        '// Standard Webhooks: v1, and the base64 HMAC-SHA256 of "id.timestamp.body" with the whsec_ secret (base64).',
        "const hash = require('crypto-js');",
        "const signed = pm.variables.replaceIn('msg_{{runId}}.{{nowSeconds}}.') + pm.variables.replaceIn(pm.request.body.raw);",
        "const key = hash.enc.Base64.parse(pm.variables.get('signedSecret').replace(/^whsec_/, ''));",
        "pm.variables.set('signedSignature', 'v1,' + hash.HmacSHA256(signed, key).toString(hash.enc.Base64));",
      ],
      after: [json, "pm.test('records the lead', () => pm.expect(answer.recorded + answer.repeated).to.equal(1));"],
    },
  ],
};

export const bookings: Folder = {
  name: 'Bookings',
  steps: [
    {
      operation: 'getListingAvailability',
      expect: 200,
      path: { slug: 'holidayHome' },
      after: [
        json,
        '// The first stay the home takes from 40 days on: its minimum nights (at least 2), an open arrival day, no night taken.',
        'const iso = (date) => date.toISOString().slice(0, 10);',
        'const nights = Math.min(Math.max(answer.min_nights, 2), answer.max_nights);',
        'for (let offset = 40; offset < Math.min(answer.advance_days, 360); offset++) {',
        "  const start = new Date(Date.parse(answer.from + 'T00:00:00Z') + offset * 864e5);",
        '  const [checkIn, checkOut] = [iso(start), iso(new Date(start.getTime() + nights * 864e5))];',
        '  if (answer.closed_arrival_days.includes((start.getUTCDay() + 6) % 7)) continue;',
        '  if (answer.blocked.some((range) => range.start < checkOut && checkIn < range.end)) continue;',
        '  if ((answer.available_from && checkIn < answer.available_from) || (answer.available_to && checkOut > answer.available_to)) continue;',
        `  ${set('checkIn', 'checkIn')}`,
        `  ${set('checkOut', 'checkOut')}`,
        '  break;',
        '}',
      ],
    },
    { operation: 'getListingCalendarFeed', expect: 200, path: { slug: 'holidayHome' } },
    {
      operation: 'getListingQuote',
      expect: 200,
      path: { slug: 'holidayHome' },
      query: { check_in: '{{checkIn}}', check_out: '{{checkOut}}', guests: '2' },
    },
    {
      operation: 'createBooking',
      expect: 201,
      body: {
        listing: '{{holidayHome}}',
        check_in: '{{checkIn}}',
        check_out: '{{checkOut}}',
        guests: 2,
        name: 'Sam Guest',
        email: 'sam.{{runId}}@example.com',
        consent: true,
        consent_version: '2026-01',
      },
    },
    { operation: 'getListingRates', expect: 200, path: { slug: 'holidayHome' } },
    {
      operation: 'setListingRates',
      expect: 200,
      path: { slug: 'holidayHome' },
      body: { rates: [{ starts_on: '{{in14Days}}', ends_on: '{{in30Days}}', price: '900.00', min_nights: 2 }] },
    },
    {
      operation: 'receiveRatePush',
      expect: 200,
      headers: {
        'webhook-id': 'push_{{runId}}',
        'webhook-timestamp': '{{nowSeconds}}',
        'webhook-signature': '{{pricingSignature}}',
      },
      body: { listing_id: '{{holidayHome}}', data: [{ date: '{{in90Days}}', price: 950, min_stay: 2 }] },
      before: [
        '// As the pricing tool signs: once, PUT /admin/v1/companies/<company>/pricing-tool with {tool, secret}; pricingSecret is that secret.',
        "const hash = require('crypto-js');",
        "const signed = pm.variables.replaceIn('push_{{runId}}.{{nowSeconds}}.') + pm.variables.replaceIn(pm.request.body.raw);",
        "const key = hash.enc.Base64.parse(pm.variables.get('pricingSecret').replace(/^whsec_/, ''));",
        "pm.variables.set('pricingSignature', 'v1,' + hash.HmacSHA256(signed, key).toString(hash.enc.Base64));",
      ],
    },
    // Reservations for integrations (issue 37): the server key (read:bookings, write:bookings) reads the booking the
    // visitor requested above, confirms it and changes its guests; then records a booking taken on a channel and cancels
    // it, so the next run finds its nights free.
    { operation: 'listBookings', expect: 200, query: { status: 'held' } },
    { operation: 'getBooking', expect: 200 },
    { operation: 'confirmBooking', expect: 200 },
    { operation: 'updateBooking', expect: 200, body: { guests: 3 } },
    {
      operation: 'createChannelBooking',
      expect: 201,
      body: {
        channel: 'airbnb',
        channel_reference: 'HM{{runId}}',
        listing: '{{holidayHome}}',
        check_in: '{{channelCheckIn}}',
        check_out: '{{channelCheckOut}}',
        guests: 2,
        name: 'Omar Channel',
        email: 'omar.{{runId}}@example.com',
      },
      before: [
        '// Four nights 300 days ahead (past the visitor’s and the pricing tool’s dates).',
        'const day = (n) => new Date(Date.now() + n * 864e5).toISOString().slice(0, 10);',
        "pm.variables.set('channelCheckIn', day(300));",
        "pm.variables.set('channelCheckOut', day(304));",
      ],
      after: ["if (pm.response.code < 300) pm.collectionVariables.set('bookings_reference', pm.response.json().reference);"],
    },
    { operation: 'cancelBooking', expect: 200 },
  ],
};

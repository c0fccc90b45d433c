import { expectStampedSince } from '../support/times';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../lib/ratelimit/memory';
import type { TestApi } from '../support/harness';
import {
  answer,
  enquiry,
  expectProblem,
  expectRefused,
  type FormCompany,
  formCompany,
  formsForFile,
  keysOf,
  openForms,
  postForm,
  publishableKey,
  readLead,
  site,
  stored,
  type Verifier,
} from './support';
import { testClient } from '../support/client';
import { adminOf, createKey, demoCompany } from '../support/world';

let api: TestApi;
let verifier: Verifier;
let company: FormCompany;
formsForFile((file) => ({ api, verifier, company } = file));

describe('an enquiry from a listed origin with a valid challenge', () => {
  it('answers 201 with the reference only, and records the lead as caused by the website', async () => {
    const sent = Date.now();
    const visitorAddress = '198.51.100.77';
    const body = enquiry(verifier, { name: 'Mira Haddad', phone: '+971 50 123 4567', message: 'Still available?' });
    const res = await postForm(api, company, body, { clientAddress: visitorAddress });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.json)).toEqual(['reference']);
    expect(res.json.reference).toMatch(/^L-[0-9A-HJKMNP-TV-Z]{10}$/);
    expect(res.text).not.toContain('Mira');

    // The spam check asked siteverify with the company's secret, the token and the visitor's address.
    expect(verifier.requests.at(-1)).toEqual({ secret: verifier.secret, response: body.challenge, remoteip: visitorAddress });

    const read = await readLead(api, company, res.json.reference);
    expect(read.status, read.text).toBe(200);
    expect(read.json).toMatchObject({ reference: res.json.reference, status: 'new', message: 'Still available?' });
    expect(read.json.consent.version).toBe('2026-01');
    expectStampedSince(read.json.consent.given_at, sent);

    const row = await api.db
      .selectFrom('leads')
      .selectAll()
      .where('reference', '=', res.json.reference)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ caused_by: 'website', consent_version: '2026-01', consent_address: visitorAddress });
    expect(row.consent_at).not.toBeNull();

    const events = await api.db
      .selectFrom('events')
      .select(['type', 'caused_by', 'data'])
      .where('company_id', '=', company.id)
      .where((eb) => eb.or([eb('type', '=', 'lead.created'), eb('type', '=', 'contact.created')]))
      .execute();
    expect(events).toEqual(
      expect.arrayContaining([
        { type: 'lead.created', caused_by: 'website', data: { reference: res.json.reference, person: read.json.person } },
        { type: 'contact.created', caused_by: 'website', data: { reference: read.json.person } },
      ]),
    );
  });

  it('lets a server key with write:leads post without Origin or challenge (the whole lead back)', async () => {
    const writer = await createKey(api, company.id, { scopes: ['write:leads'] });
    const res = await answer(
      testClient(api, { host: company.host, serverKey: writer.secret }).POST('/api/v1/leads', {
        body: { consent: true, consent_version: '2026-01', email: 'server.post@example.com' },
      }),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ status: 'new', consent: { version: '2026-01' }, details: null });
    const row = await api.db
      .selectFrom('leads')
      .selectAll()
      .where('reference', '=', res.json.reference)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ caused_by: `api:${writer.prefix}`, consent_address: null });
  });

  it("stamps the consent with the API's clock (the instant the request is recorded)", async () => {
    const at = '2027-03-01T08:30:00.000Z';
    api.clock.set(new Date(at));
    try {
      const res = await postForm(api, company, enquiry(verifier, { name: 'Clock Visitor' }));
      expect(res.status, res.text).toBe(201);
      const read = await readLead(api, company, res.json.reference);
      expect(read.json.consent.given_at).toBe(at);
    } finally {
      api.clock.set(null);
    }
  });
});

describe('keys and origins', () => {
  it.each([
    ['an origin not on the key', 'https://evil.example.net'],
    ['the listed host on another scheme', 'http://www.example.com'],
    ['the listed host on another port', 'https://www.example.com:8443'],
    ['no Origin header', null],
    ['the opaque origin "null"', 'null'],
  ])('refuses %s with 403 origin_not_allowed', async (_name, origin) => {
    await expectRefused(api, company.id, 403, 'origin_not_allowed', () => postForm(api, company, enquiry(verifier), { origin }));
  });

  it('refuses an unknown key, a wrong secret of a real key and a revoked key', async () => {
    const unknown = `pk_${'A'.repeat(10)}${'b'.repeat(32)}`;
    const wrongSecret = `${company.key.prefix}${'c'.repeat(32)}`;
    for (const key of [unknown, wrongSecret, 'pk_short']) {
      await expectRefused(api, company.id, 403, 'key_invalid', () => postForm(api, company, enquiry(verifier), { key }));
    }
    const revoked = await publishableKey(api, company.id);
    expect((await keysOf(api, company.id).revoke(revoked.prefix)).status).toBe(200);
    await expectRefused(api, company.id, 403, 'key_revoked', () =>
      postForm(api, company, enquiry(verifier), { key: revoked.secret }),
    );
  });

  it("refuses another company's publishable key on this host", async () => {
    const other = await formCompany(api, verifier);
    await expectRefused(api, company.id, 403, 'key_wrong_company', () =>
      postForm(api, company, enquiry(verifier), { key: other.key.secret }),
    );
  });

  it('refuses the publishable key sent as Authorization: Bearer (403 key_wrong_header), and writes nothing', async () => {
    // The reverse mistake (a server key in X-Api-Key) is refused the same way: the code says where the key goes.
    const res = await expectRefused(api, company.id, 403, 'key_wrong_header', () =>
      answer(
        testClient(api, { host: company.host }).POST('/api/v1/leads', {
          body: enquiry(verifier) as never,
          headers: { Authorization: `Bearer ${company.key.secret}`, Origin: site },
        }),
      ),
    );
    expect(res.json.detail).toContain('X-Api-Key');
  });

  it('refuses a publishable key on server-key routes with 403 key_wrong_kind', async () => {
    const page = testClient(api, { host: company.host, headers: { 'X-Api-Key': company.key.secret, Origin: site } });
    for (const res of [await answer(page.GET('/api/v1/leads')), await answer(page.GET('/api/v1/contacts'))]) {
      expectProblem(res, 403, 'key_wrong_kind');
    }
  });
});

describe('rate limits: refusals first, then per key', () => {
  let limited: Awaited<ReturnType<typeof openForms>>;
  let target: FormCompany;
  beforeAll(async () => {
    // A frozen clock in the middle of a window: the window never turns during the test.
    const now = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
    limited = await openForms({
      env: { RATE_LIMIT_PUBLISHABLE_KEY_PER_MINUTE: '3' },
      handle: api.handle,
      limiter: new MemoryRateLimiter(() => now),
    });
    target = await formCompany(limited.api, limited.verifier);
  });
  afterAll(() => limited.close());

  const send = (options: Parameters<typeof postForm>[3] = {}) =>
    postForm(limited.api, target, enquiry(limited.verifier), options);

  it("never counts a wrong key or a refused origin against the valid key's limit; then limits that key", async () => {
    const revoked = await publishableKey(limited.api, target.id);
    expect((await keysOf(limited.api, target.id).revoke(revoked.prefix)).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      expectProblem(await send({ key: `${target.key.prefix}${'x'.repeat(32)}` }), 403, 'key_invalid');
      expectProblem(await send({ key: revoked.secret }), 403, 'key_revoked');
      expectProblem(await send({ origin: 'https://elsewhere.example.org' }), 403, 'origin_not_allowed');
      expectProblem(await send({ origin: null }), 403, 'origin_not_allowed');
    }
    for (let i = 0; i < 3; i++) {
      const res = await send();
      expect(res.status, res.text).toBe(201);
      expect(res.headers.get('ratelimit-policy')).toBe('"publishable_key";q=3;w=60');
    }
    const calls = limited.verifier.requests.length;
    const before = await stored(limited.api, target.id);
    const limitedRes = await send();
    expectProblem(limitedRes, 429, 'rate_limited');
    expect(Number(limitedRes.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.verifier.requests.length).toBe(calls);
    expect(await stored(limited.api, target.id)).toEqual(before);
    // The refusals still answer 403, not 429: they never reach the limiter.
    expectProblem(await send({ key: revoked.secret }), 403, 'key_revoked');
    // Another key of the same company has its own allowance.
    const second = await publishableKey(limited.api, target.id);
    expect((await send({ key: second.secret })).status).toBe(201);
  });
});

describe('localhost origins', () => {
  const local = 'http://localhost:4321';

  it('are accepted on a development workspace', async () => {
    const dev = await formCompany(api, verifier, { environment: 'development', origins: [local] });
    const res = await postForm(api, dev, enquiry(verifier, {}, 'localhost'), { origin: local });
    expect(res.status, res.text).toBe(201);
  });

  it('cannot be put on a key of a production workspace (400)', async () => {
    for (const origin of [local, 'http://127.0.0.1:8080', 'http://app.localhost']) {
      const res = await keysOf(api, company.id).create({ kind: 'publishable', origins: [site, origin] });
      expectProblem(res, 400, 'invalid_request');
      expect(res.json.errors).toEqual([{ path: 'origins', code: 'local_origin', message: expect.any(String) }]);
    }
  });

  it('are refused (403) when a key has one and its workspace became production', async () => {
    const dev = await formCompany(api, verifier, { environment: 'development', origins: [local, site] });
    // Another process's change (SQL straight on the database): forms see it once the database announced it.
    const noticed = api.platform.companyCache.changed(dev.id);
    await api.db.updateTable('companies').set({ environment: 'production' }).where('id', '=', dev.id).execute();
    await noticed;
    await expectRefused(api, dev.id, 403, 'origin_not_allowed', () =>
      postForm(api, dev, enquiry(verifier, {}, 'localhost'), { origin: local }),
    );
    // The key's other origin still works.
    expect((await postForm(api, dev, enquiry(verifier))).status).toBe(201);
  });
});

describe('lead types', () => {
  it('lists enquiry alone on a key by default', async () => {
    const keys = await keysOf(api, company.id).list();
    const key = keys.json.results.find((k: { prefix: string }) => k.prefix === company.key.prefix);
    expect(key.lead_types).toEqual(['enquiry']);
  });

  it('refuses an enquiry from a key that only sends bookings', async () => {
    const bookings = await publishableKey(api, company.id, [site], ['booking']);
    await expectRefused(api, company.id, 403, 'lead_type_not_allowed', () =>
      postForm(api, company, enquiry(verifier), { key: bookings.secret }),
    );
  });

  it('needs listing_request on the key for a service of that kind', async () => {
    const put = await answer(
      adminOf(api).PUT('/admin/v1/companies/{company_id}/services/{key}', {
        params: { path: { company_id: company.id, key: 'owners-desk' } },
        body: { name: { en: 'Owners desk' }, kind: 'listing_request' } as never,
      }),
    );
    expect(put.status, put.text).toBe(200);
    await expectRefused(api, company.id, 403, 'lead_type_not_allowed', () =>
      postForm(api, company, enquiry(verifier, { service: 'owners-desk' })),
    );
    const owners = await publishableKey(api, company.id, [site], ['listing_request']);
    const res = await postForm(api, company, enquiry(verifier, { service: 'owners-desk' }), { key: owners.secret });
    expect(res.status, res.text).toBe(201);
    // …and that key sends nothing else.
    await expectRefused(api, company.id, 403, 'lead_type_not_allowed', () =>
      postForm(api, company, enquiry(verifier), { key: owners.secret }),
    );
  });
});

// Other spellings of this machine and of private networks (issue 9), each an exact origin a key can list.
const spellings = [
  'http://localhost.:3000',
  'http://app.localhost.',
  'http://0.0.0.0:3000',
  'http://[::]:3000',
  'http://[::1]:3000',
  'http://[::ffff:7f00:1]',
  'http://10.0.0.5',
  'http://172.20.1.1:8080',
  'http://192.168.1.10',
  'http://169.254.169.254',
  'http://[fd00::1]',
  'http://[fe80::1]',
];

describe('origins on this machine or in a private network, in any spelling', () => {
  it.each(spellings)('%s cannot be put on a key of a production workspace (400 local_origin)', async (origin) => {
    const res = await keysOf(api, company.id).create({ kind: 'publishable', origins: [site, origin] });
    expectProblem(res, 400, 'invalid_request');
    expect(res.json.errors).toEqual([{ path: 'origins', code: 'local_origin', message: expect.any(String) }]);
  });

  it('are all accepted on a key of a development workspace, as are public addresses on production', async () => {
    const dev = await demoCompany(api, {}, { environment: 'development' });
    const local = await keysOf(api, dev.id).create({ kind: 'publishable', origins: spellings });
    expect(local.status, local.text).toBe(201);
    const open = ['http://172.32.0.1', 'http://[2606:4700::1111]', 'https://www.example.org'];
    const pub = await keysOf(api, company.id).create({ kind: 'publishable', origins: open });
    expect(pub.status, pub.text).toBe(201);
  });

  it('are refused (403 origin_not_allowed, no CORS grant) once the workspace is production, though listed', async () => {
    const dev = await formCompany(api, verifier, { environment: 'development', origins: [...spellings, site] });
    // Another process's change (SQL straight on the database): forms see it once the database announced it.
    const noticed = api.platform.companyCache.changed(dev.id);
    await api.db.updateTable('companies').set({ environment: 'production' }).where('id', '=', dev.id).execute();
    await noticed;
    for (const origin of spellings) {
      const res = await expectRefused(api, dev.id, 403, 'origin_not_allowed', () =>
        postForm(api, dev, enquiry(verifier), { origin }),
      );
      expect(res.headers.get('Access-Control-Allow-Origin'), origin).toBeNull();
    }
    expect((await postForm(api, dev, enquiry(verifier))).status).toBe(201);
  });
});

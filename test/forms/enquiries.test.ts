import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { base64url } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { isCardNumber } from '../../schema/common/card-numbers';
import { forbiddenKind } from '../../schema/common/forbidden-keys';
import { loadConfig } from '../../lib/config';
import { newDetailsKey } from '../../lib/crypto-jwe';
import { ensureDetailsKeys } from '../../lib/node/platform';
import { testClient } from '../support/client';
import { createTestApi, type TestApi } from '../support/harness';
import { setUpdatedAt, expectStampedSince } from '../support/times';
import { createKey, useApi, useDemoCompany } from '../support/world';
import { answer, postLead } from './support';

let writer: { secret: string; prefix: string };
let reader: { secret: string; prefix: string };

const api = useApi();
const company = useDemoCompany(api, { phone_country: 'AE' });
beforeAll(async () => {
  writer = await createKey(api, company.id, { scopes: ['write:leads'] });
  reader = await createKey(api, company.id, { scopes: ['read:leads'] });
});

let serial = 0;
const email = () => `lead.${Date.now().toString(36)}${(serial++).toString(36)}@example.com`;
const base = () => ({ consent: true, consent_version: '2026-01', email: email() });
/** POST /leads of any body (the refused ones too) through the typed client, on `target`'s app. */
const post = (body: unknown, target: TestApi = api, key = writer.secret) => postLead(target, company.host, key, body);
const get = (reference: string, target: TestApi = api) =>
  answer(
    testClient(target, { host: company.host, serverKey: reader.secret }).GET('/api/v1/leads/{reference}', {
      params: { path: { reference } },
    }),
  );
const eventsOf = (reference: string) =>
  api.db
    .selectFrom('events')
    .selectAll()
    .where('company_id', '=', company.id)
    .execute()
    .then((rows) => rows.filter((e) => Object.values(e.data).includes(reference)));
const leadCount = async () =>
  Number(
    (
      await api.db
        .selectFrom('leads')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('company_id', '=', company.id)
        .executeTakeFirstOrThrow()
    ).n,
  );
const paths = (res: { json: { errors?: Array<{ path: string }> } }) => (res.json.errors ?? []).map((e) => e.path);

describe('POST /leads with a server key', () => {
  it('answers 201 with the whole lead and records lead.created and contact.created caused by the key', async () => {
    const before = Date.now();
    const address = email();
    const res = await post({
      consent: true,
      consent_version: '2026-01',
      email: address,
      phone: '050 123 4567',
      name: 'Mira Haddad',
      message: 'Is it still available?',
      language: 'ar',
      service: 'not-in-the-list-yet',
      form: 'listing_enquiry-2',
      page: 'https://user:secret@www.example.com/en/listings/marina?utm_source=x#photos',
      listing: 'مارينا-جيت-غرفتين-اطلالة-بحرية',
      details: { purpose: 'sale', bedrooms: 2, size_sqm: 120.5, furnished: true, views: ['sea', 'marina'] },
    });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.json).sort()).toEqual(
      'assignee channel consent created_at department details erased escalated_at external first_answer_seconds first_answered_at form language listing message next_action page person reference referral sent service source source_id status updated_at'
        .split(' ')
        .sort(),
    );
    const lead = res.json;
    expect(lead.reference).toMatch(/^L-[0-9A-HJKMNP-TV-Z]{10}$/);
    expect(lead.person).toMatch(/^P-[0-9A-Z]{10}$/);
    expect(lead).toMatchObject({
      status: 'new',
      assignee: null,
      department: null,
      next_action: null,
      first_answered_at: null,
      first_answer_seconds: null,
      escalated_at: null,
      service: 'not-in-the-list-yet',
      form: 'listing_enquiry-2',
      page: 'https://www.example.com/en/listings/marina',
      listing: 'marina-gate-2br-sea-view',
      message: 'Is it still available?',
      language: 'ar',
      details: { purpose: 'sale', bedrooms: 2, size_sqm: 120.5, furnished: true, views: ['sea', 'marina'] },
      // A server's enquiry: channel form, source api, what was sent kept as sent (the phone too, as dialled).
      sent: { name: 'Mira Haddad', email: address, phone: '050 123 4567', listing: 'مارينا-جيت-غرفتين-اطلالة-بحرية' },
      channel: 'form',
      source: 'api',
      source_id: null,
      referral: null,
      external: [],
      erased: false,
    });
    expect(lead.consent.version).toBe('2026-01');
    expectStampedSince(lead.consent.given_at, before);

    const person = await api.db.selectFrom('contacts').selectAll().where('reference', '=', lead.person).executeTakeFirstOrThrow();
    expect(person).toMatchObject({ name: 'Mira Haddad', email: address, phone: '+971501234567', language: 'ar' });

    const leadEvents = await eventsOf(lead.reference);
    expect(leadEvents.map((e) => [e.type, e.caused_by, e.data])).toEqual([
      ['lead.created', `api:${writer.prefix}`, { reference: lead.reference, person: lead.person }],
    ]);
    const personEvents = (await eventsOf(lead.person)).filter((e) => e.type === 'contact.created');
    expect(personEvents.map((e) => [e.caused_by, e.data])).toEqual([[`api:${writer.prefix}`, { reference: lead.person }]]);
  });

  it('matches the same person for a second enquiry (no second contact.created)', async () => {
    const address = email();
    const first = await post({ ...base(), email: address });
    const second = await post({ ...base(), email: address.toUpperCase(), name: 'Filled Later' });
    expect(second.status).toBe(201);
    expect(second.json.person).toBe(first.json.person);
    expect(second.json.reference).not.toBe(first.json.reference);
    const created = (await eventsOf(first.json.person)).filter((e) => e.type === 'contact.created');
    expect(created).toHaveLength(1);
  });

  it('keeps an unknown listing out (null) and a page that is not http(s) out, but records the enquiry', async () => {
    for (const page of ['ftp://www.example.com/form', 'javascript:alert(1)', 'not an address']) {
      const res = await post({ ...base(), listing: 'no-such-listing', page });
      expect(res.status, res.text).toBe(201);
      expect(res.json.listing).toBeNull();
      expect(res.json.page).toBeNull();
    }
    const res = await post({ ...base(), phone: '+971 50 765 4321', email: undefined, page: 'http://example.com/a/b/' });
    expect(res.status).toBe(201);
    expect(res.json.page).toBe('http://example.com/a/b/');
  });

  it.each([
    ['consent missing', { consent_version: '2026-01', email: 'a@example.com' }, 'consent'],
    ['consent false', { consent: false, consent_version: '2026-01', email: 'a@example.com' }, 'consent'],
    ['consent_version missing', { consent: true, email: 'a@example.com' }, 'consent_version'],
    ['consent_version blank', { consent: true, consent_version: '  ', email: 'a@example.com' }, 'consent_version'],
    ['no email nor phone', { consent: true, consent_version: '2026-01', name: 'x' }, 'email'],
    ['a malformed email', { ...{ consent: true, consent_version: '1' }, email: 'not-an-email' }, 'email'],
    ['an unreadable phone', { consent: true, consent_version: '1', phone: '12' }, 'phone'],
    ['form with capitals', { consent: true, consent_version: '1', email: 'a@example.com', form: 'Contact Form' }, 'form'],
    ['service with spaces', { consent: true, consent_version: '1', email: 'a@example.com', service: 'sell my flat' }, 'service'],
    ['language not ISO', { consent: true, consent_version: '1', email: 'a@example.com', language: 'english' }, 'language'],
    ['an unknown field', { consent: true, consent_version: '1', email: 'a@example.com', homepage: '' }, 'homepage'],
  ])('refuses %s with 400 at its field, recording nothing', async (_name, body, path) => {
    const before = await leadCount();
    const res = await post(body);
    expect(res.status, res.text).toBe(400);
    expect(res.json.code).toBe('invalid_request');
    expect(paths(res)).toContain(path);
    expect(await leadCount()).toBe(before);
  });
});

describe('details', () => {
  const refusedKeys = (
    'passport passport_no passportno pass_port passport2 passport_number_2 emirates_id emiratesid ' +
    'my_emirates_id national_id id_number idnumber id_no ssn social_security_number iban bank_account ' +
    'card card_number cardnumber credit_card cc cc_number cvv cvv2 cvc pin pin_code password ' +
    'pass_word passwd pwd passcode user_password drivers_license email e_mail email_address phone ' +
    'phone_number mobile mobile2 whatsapp telephone'
  ).split(' ');
  it.each(refusedKeys)('refuses the key %s with 400 at details.<key>', async (key) => {
    const res = await post({ ...base(), details: { purpose: 'sale', [key]: 'x' } });
    expect(res.status, res.text).toBe(400);
    expect(paths(res)).toEqual([`details.${key}`]);
    expect(['forbidden_key', 'contact_details']).toContain(res.json.errors[0].code);
  });

  const innocentKeys = (
    'postcard spinning_room idea occupation pinnacle_view accommodation happiness listing_id purpose ' +
    'area property_type bedrooms bathrooms size_sqm price price_period access compass_direction ' +
    'passage_width ideal_move_in scc_tower pinned'
  ).split(' ');
  it('accepts innocent keys that contain forbidden letters (whole tokens only)', async () => {
    const details = Object.fromEntries(innocentKeys.map((key, i) => [key, i]));
    expect(Object.keys(details).length).toBeGreaterThan(20);
    const first = Object.fromEntries(Object.entries(details).slice(0, 20));
    const rest = Object.fromEntries(Object.entries(details).slice(20));
    for (const chunk of [first, rest]) {
      const res = await post({ ...base(), details: chunk });
      expect(res.status, res.text).toBe(201);
      expect(res.json.details).toEqual(chunk);
    }
  });

  it.each([
    ['an email in text', 'write to me at mira@example.com please', 'contact_details'],
    ['an international phone', '+971 50 123 4567', 'contact_details'],
    ['a 00 phone inside text', 'call 00971501234567 after six', 'contact_details'],
    ['a local phone', '050-123-4567', 'contact_details'],
    ['a card number with spaces', '4111 1111 1111 1111', 'card_number'],
    ['a card number with dashes', '5500-0000-0000-0004', 'card_number'],
    ['a card number in text', 'pay with 378282246310005 thanks', 'card_number'],
    ['a card number as a number', 4111111111111111, 'card_number'],
    ['a card number in a list', ['sea', '4012888888881881'], 'card_number'],
  ])('refuses %s in a value', async (_name, value, code) => {
    const res = await post({ ...base(), details: { note: value } });
    expect(res.status, res.text).toBe(400);
    expect(res.json.errors).toEqual([{ path: 'details.note', code, message: expect.any(String) }]);
  });

  it.each([
    ['a 16-digit number failing Luhn', '4111 1111 1111 1112'],
    ['a price in text', 'AED 1,500,000'],
    ['a big price as a number', 1500000],
    ['an ISO date', '2026-05-01'],
    ['a day-month-year date', '05-01-2026'],
    ['a count', '3 bedrooms, 0 bathrooms'],
    ['a 25-digit reference', '1234567890123456789012345'],
  ])('accepts %s', async (_name, value) => {
    const res = await post({ ...base(), details: { note: value } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.details).toEqual({ note: value });
  });

  it('names every refused key at once and records nothing', async () => {
    const before = await leadCount();
    const res = await post({
      ...base(),
      details: { passport: 'x', ok: 'fine', memo: 'mira@example.com', n: '4111111111111111' },
    });
    expect(res.status).toBe(400);
    expect(paths(res).sort()).toEqual(['details.memo', 'details.n', 'details.passport']);
    expect(await leadCount()).toBe(before);
  });

  it.each([
    ['more than 20 keys', Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i])), 'details'],
    ['a key with capitals', { Bedrooms: 2 }, 'details.Bedrooms'],
    ['a key with a dash', { 'size-sqm': 2 }, 'details.size-sqm'],
    ['text over 500 characters', { note: 'x'.repeat(501) }, 'details.note'],
    ['an object value', { note: { a: 1 } }, 'details.note'],
    ['a list of objects', { note: [{ a: 1 }] }, 'details.note'],
    ['null', { note: null }, 'details.note'],
  ])('refuses %s by shape (400)', async (_name, details, path) => {
    const res = await post({ ...base(), details });
    expect(res.status, res.text).toBe(400);
    expect(paths(res)[0]).toBe(path);
  });

  it('stores details only as a compact JWE (dir, A256GCM, kid), never in the clear, and decrypts them on GET', async () => {
    const details = { purpose: 'lease', note: 'Wants a quiet-street-balcony', bedrooms: 3 };
    const res = await post({ ...base(), details });
    const row = await api.db
      .selectFrom('leads')
      .selectAll()
      .where('reference', '=', res.json.reference)
      .executeTakeFirstOrThrow();
    const parts = (row.details_jwe as string).split('.');
    expect(parts).toHaveLength(5);
    expect(parts[1]).toBe(''); // dir: no encrypted key
    const header = JSON.parse(new TextDecoder().decode(base64url.decode(parts[0] as string)));
    expect(header).toEqual({ alg: 'dir', enc: 'A256GCM', kid: api.platform.config.DETAILS_KEY_ID });
    const stored = JSON.stringify(row);
    for (const plain of ['quiet-street-balcony', 'purpose', 'lease']) expect(stored).not.toContain(plain);
    const read = await get(res.json.reference);
    expect(read.status).toBe(200);
    expect(read.json.details).toEqual(details);
  });

  it('stores no details column for an enquiry without details (null on GET)', async () => {
    const res = await post({ ...base(), details: {} });
    const row = await api.db
      .selectFrom('leads')
      .select('details_jwe')
      .where('reference', '=', res.json.reference)
      .executeTakeFirstOrThrow();
    expect(row.details_jwe).toBeNull();
    expect(res.json.details).toBeNull();
  });
});

describe('encryption keys', () => {
  it('decrypts old details after a rotation, by the kid of each value', async () => {
    const old = await post({ ...base(), details: { note: 'before rotation' } });
    const next = newDetailsKey();
    const rotated = await createTestApi({
      handle: api.handle,
      env: {
        DETAILS_KEYS: JSON.stringify({ ...api.platform.config.DETAILS_KEYS, [next.kid]: next.key }),
        DETAILS_KEY_ID: next.kid,
      },
    });
    const fresh = await post({ ...base(), details: { note: 'after rotation' } }, rotated);
    expect(fresh.status).toBe(201);
    const jwe = (
      await api.db
        .selectFrom('leads')
        .select('details_jwe')
        .where('reference', '=', fresh.json.reference)
        .executeTakeFirstOrThrow()
    ).details_jwe as string;
    expect(JSON.parse(new TextDecoder().decode(base64url.decode(jwe.split('.')[0] as string))).kid).toBe(next.kid);
    expect((await get(old.json.reference, rotated)).json.details).toEqual({ note: 'before rotation' });
    expect((await get(fresh.json.reference, rotated)).json.details).toEqual({ note: 'after rotation' });
    // The first API never had the new key: it cannot open the new value, and says so (503), never a 500.
    const without = await get(fresh.json.reference);
    expect(without.status).toBe(503);
    expect(without.json.code).toBe('encryption_unavailable');
  });

  it('refuses details with 503 encryption_unavailable when no key is configured, recording nothing; other enquiries pass', async () => {
    const keyless = await createTestApi({ handle: api.handle, env: { DETAILS_KEYS: '', DETAILS_KEY_ID: '' } });
    const before = await leadCount();
    const address = email();
    const refused = await post({ ...base(), email: address, details: { note: 'x' } }, keyless);
    expect(refused.status).toBe(503);
    expect(refused.json.code).toBe('encryption_unavailable');
    expect(await leadCount()).toBe(before);
    expect(await api.db.selectFrom('contacts').select('id').where('email', '=', address).execute()).toEqual([]);
    const plain = await post({ ...base(), email: address }, keyless);
    expect(plain.status).toBe(201);
  });

  it('lets the Node server generate its key once in DATA_DIR (mode 600) and reuse it; set variables win', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'details-keys-'));
    const env: NodeJS.ProcessEnv = { DATA_DIR: dir };
    await ensureDetailsKeys(env);
    const file = join(dir, 'details-keys.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(JSON.parse(env.DETAILS_KEYS as string)).toEqual(saved.DETAILS_KEYS);
    expect(env.DETAILS_KEY_ID).toBe(saved.DETAILS_KEY_ID);
    expect(loadConfig(env).DETAILS_KEY_ID).toBe(saved.DETAILS_KEY_ID);
    const second: NodeJS.ProcessEnv = { DATA_DIR: dir };
    await ensureDetailsKeys(second);
    expect(second.DETAILS_KEYS).toBe(env.DETAILS_KEYS);
    const given: NodeJS.ProcessEnv = { DATA_DIR: join(dir, 'other'), DETAILS_KEYS: '{"a":"b"}', DETAILS_KEY_ID: 'a' };
    await ensureDetailsKeys(given);
    expect(given.DETAILS_KEYS).toBe('{"a":"b"}');
    await expect(stat(join(dir, 'other'))).rejects.toThrow();
    await rm(dir, { recursive: true });
  });

  it('refuses a configuration whose DETAILS_KEY_ID names no key', async () => {
    const key = newDetailsKey();
    await expect(
      createTestApi({
        handle: api.handle,
        env: { DETAILS_KEYS: JSON.stringify({ [key.kid]: key.key }), DETAILS_KEY_ID: 'other' },
      }),
    ).rejects.toThrow(/DETAILS_KEY_ID/);
  });
});

describe('the matchers on their own', () => {
  it('matches whole tokens and runs of tokens only', () => {
    expect(forbiddenKind('passport_no')).toBe('identity');
    expect(forbiddenKind('my_emirates_id')).toBe('identity');
    expect(forbiddenKind('pass_word')).toBe('secret');
    expect(forbiddenKind('card_number')).toBe('payment');
    expect(forbiddenKind('whats_app')).toBe('contact');
    for (const key of ['postcard', 'spinning_room', 'idea', 'occupation', 'id', 'listing_id'])
      expect(forbiddenKind(key)).toBeUndefined();
  });
  it('checks card numbers by Luhn on 13 to 19 digits', () => {
    expect(isCardNumber('4111111111111111')).toBe(true);
    expect(isCardNumber('4222222222222')).toBe(true);
    expect(isCardNumber('4111111111111112')).toBe(false);
    expect(isCardNumber('411111111111')).toBe(false);
    expect(isCardNumber('41111111111111111111')).toBe(false);
  });
});

describe('a lead for a person already known', () => {
  it('moves the person’s updated_at and records contact.updated, since their leads list changed', async () => {
    const body = base();
    const first = await post(body);
    const person = first.json.person as string;
    const people = await createKey(api, company.id, { scopes: ['read:contacts'] });
    const read = () =>
      answer(
        testClient(api, { host: company.host, serverKey: people.secret }).GET('/api/v1/contacts/{reference}', {
          params: { path: { reference: person } },
        }),
      );
    // An earlier instant set explicitly: the two writes could fall in one millisecond of PGlite's clock.
    await setUpdatedAt(
      api.db,
      'contacts',
      { companyId: company.id, column: 'reference', value: person },
      new Date('2025-01-01T00:00:00.000Z'),
    );
    const before = (await read()).json;
    const second = await post({ ...body, message: 'A second enquiry' });
    expect(second.json.person).toBe(person);
    const after = (await read()).json;
    expect(after.leads).toEqual([first.json.reference, second.json.reference]);
    expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(before.updated_at));
    const updates = await api.db
      .selectFrom('events')
      .select('data')
      .where('company_id', '=', company.id)
      .where('type', '=', 'contact.updated')
      .execute();
    expect(updates.map((e) => e.data)).toContainEqual({ reference: person });
  });
});

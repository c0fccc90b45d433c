import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../clients/typescript/src/index';
import { eraseContact } from '../../functions/crm/erasure';
import { newReference } from '../../lib/references';
import { type TestClient, testClient } from '../support/client';
import type { TestApi } from '../support/harness';
import { setUpdatedAt } from '../support/times';
import { adminOf, createCompany, createKey, type Key, unique, type World, world } from '../support/world';

type ContactInput = components['schemas']['ContactInput'];
type ContactPatch = components['schemas']['ContactPatch'];
type ContactsQuery = { page_size?: number; cursor?: string; updated_since?: string; external?: string };

let w: World;
let api: TestApi;
let company: { id: string; host: string };
let writer: Key;
let writes: TestClient;
let reads: TestClient;

beforeAll(async () => {
  w = await world({ settings: { phone_country: 'AE' } });
  ({ api, company } = w);
  writer = await w.keyWith(['write:contacts']);
  [writes, reads] = await Promise.all([w.clientWith(writer.secret), w.clientWith(['read:contacts'])]);
});
afterAll(() => w.close());

const email = () => `person.${unique()}@example.com`;
/** A UAE mobile number nobody else in this file has, as national digits after the 50 prefix. */
const mobile = () => String(1_000_000 + Math.floor(Math.random() * 8_999_999));

/** The typed client of another company's host and key. */
const clientOf = (host: string, serverKey: string) => testClient(api, { host, serverKey });
const post = async (body: ContactInput, client = writes) => {
  const { data, error, response } = await client.POST('/api/v1/contacts', { body });
  return { status: response.status, data: data!, error: error! };
};
const patch = async (reference: string, body: ContactPatch) => {
  const { data, error, response } = await writes.PATCH('/api/v1/contacts/{reference}', { params: { path: { reference } }, body });
  return { status: response.status, data: data!, error: error! };
};
const getOne = async (reference: string, client = reads) => {
  const { data, response } = await client.GET('/api/v1/contacts/{reference}', { params: { path: { reference } } });
  return { status: response.status, data: data! };
};
const list = async (query: ContactsQuery, client = reads) => {
  const { data, error, response } = await client.GET('/api/v1/contacts', { params: { query } });
  return { status: response.status, data: data!, error: error! };
};
/** Bodies the document does not allow, sent as they are through the typed client (the refusals). */
const postAny = (body: Record<string, unknown>) => writes.POST('/api/v1/contacts', { body: body as never });
const patchAny = (reference: string, body: Record<string, unknown>) =>
  writes.PATCH('/api/v1/contacts/{reference}', { params: { path: { reference } }, body: body as never });
const events = (type: string, reference: string) => w.events(type, reference);

describe('POST /contacts adds a person', () => {
  it('answers 201 with the whole record and records contact.created caused by the key', async () => {
    const address = email();
    const res = await post({
      name: '  Mira Haddad ',
      email: ` ${address.toUpperCase()} `,
      phone: `+971 50 ${mobile()}`,
      language: 'ar',
      roles: ['buyer', 'buyer', 'owner'],
      external: { source: 'hubspot', id: `h-${unique()}` },
    });
    expect(res.status, JSON.stringify(res.error)).toBe(201);
    expect(Object.keys(res.data).sort()).toEqual(
      [
        'created_at',
        'email',
        'erased',
        'external',
        'language',
        'leads',
        'name',
        'phone',
        'possible_duplicates',
        'reference',
        'roles',
        'trn',
        'updated_at',
      ].sort(),
    );
    expect(res.data).toMatchObject({
      name: 'Mira Haddad',
      email: address.toUpperCase(),
      language: 'ar',
      leads: [],
      possible_duplicates: [],
      erased: false,
    });
    expect(res.data.reference).toMatch(/^P-[0-9A-HJKMNP-TV-Z]{10}$/);
    expect(res.data.phone).toMatch(/^\+97150\d{7}$/);
    expect(res.data.roles).toEqual(['buyer', 'owner']);
    expect(res.data.external).toEqual([{ source: 'hubspot', id: expect.stringMatching(/^h-/) }]);
    expect(new Date(res.data.created_at).toISOString()).toBe(res.data.created_at);
    const created = await events('contact.created', res.data.reference);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ caused_by: `api:${writer.prefix}`, data: { reference: res.data.reference } });
  });

  it('needs at least one of email, phone or external; refuses a phone it cannot read and unknown fields', async () => {
    const none = await postAny({ name: 'Nobody', language: 'en' });
    expect(none.response.status).toBe(400);
    expect(none.error?.errors).toEqual([expect.objectContaining({ path: 'email' })]);
    for (const phone of ['abc', '+971 5', '12']) {
      const bad = await postAny({ phone });
      expect(bad.response.status, phone).toBe(400);
      expect(bad.error?.errors).toEqual([expect.objectContaining({ path: 'phone', code: 'invalid_phone' })]);
    }
    expect((await postAny({ email: 'not-an-email' })).response.status).toBe(400);
    expect((await postAny({ email: email(), erased: true })).error?.errors?.[0]?.path).toBe('erased');
    expect((await postAny({ email: email(), language: 'english' })).response.status).toBe(400);
    expect((await postAny({ external: { source: 'has space', id: '1' } })).response.status).toBe(400);
  });
});

describe('POST /contacts matches a person', () => {
  it('compares emails case-insensitively and answers 200 with the first record', async () => {
    const address = email();
    const first = await post({ email: `Mira.${address}` });
    const again = await post({ email: `  mira.${address.toUpperCase()}  ` });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.data.reference).toBe(first.data.reference);
    expect(again.data.email).toBe(`Mira.${address}`);
  });

  it('normalises phones to E.164 before matching (with the company phone_country for national numbers)', async () => {
    const digits = mobile();
    const first = await post({ phone: `+971 50 ${digits.slice(0, 3)} ${digits.slice(3)}` });
    expect(first.status).toBe(201);
    expect(first.data.phone).toBe(`+97150${digits}`);
    for (const phone of [`0097150${digits}`, `050${digits}`, `(050) ${digits.slice(0, 3)}-${digits.slice(3)}`]) {
      const again = await post({ phone });
      expect([again.status, again.data.reference], phone).toEqual([200, first.data.reference]);
    }
    // Without phone_country and with a time zone of no country, a national number cannot be read; an
    // international one (+ or 00) can.
    const other = await createCompany(api, { time_zone: 'UTC' });
    const key = (await createKey(api, other.id, { scopes: ['write:contacts'] })).secret;
    expect((await post({ phone: `050${digits}` }, clientOf(other.host, key))).status).toBe(400);
    const intl = await post({ phone: `0097150${digits}` }, clientOf(other.host, key));
    expect([intl.status, intl.data.phone]).toEqual([201, `+97150${digits}`]);
    expect(intl.data.reference).not.toBe(first.data.reference); // never across companies
    for (const phone_country of ['ae', 'XX', 'UAE']) {
      const refused = await adminOf(api).PATCH('/admin/v1/companies/{company_id}', {
        params: { path: { company_id: other.id } },
        body: { settings: { phone_country } },
      });
      expect(refused.response.status, phone_country).toBe(400);
    }
  });

  it("reads a national number in the country of the company's time zone when phone_country is not set", async () => {
    const digits = mobile();
    const dubai = await createCompany(api, { time_zone: 'Asia/Dubai' });
    const key = (await createKey(api, dubai.id, { scopes: ['write:contacts'] })).secret;
    const local = await post({ phone: `050 ${digits.slice(0, 3)} ${digits.slice(3)}` }, clientOf(dubai.host, key));
    expect([local.status, local.data.phone]).toEqual([201, `+97150${digits}`]);
    // phone_country wins over the time zone: the same digits read as a UK number are not possible there.
    const london = await createCompany(api, { time_zone: 'Europe/London', settings: { phone_country: 'AE' } });
    const londonKey = (await createKey(api, london.id, { scopes: ['write:contacts'] })).secret;
    const set = await post({ phone: `050${digits}` }, clientOf(london.host, londonKey));
    expect([set.status, set.data.phone]).toEqual([201, `+97150${digits}`]);
    const uk = await createCompany(api, { time_zone: 'Europe/London' });
    const ukKey = (await createKey(api, uk.id, { scopes: ['write:contacts'] })).secret;
    const british = await post({ phone: '020 7946 0018' }, clientOf(uk.host, ukKey));
    expect([british.status, british.data.phone]).toEqual([201, '+442079460018']);
  });

  it('matches by external id first, then email, then phone', async () => {
    const [a, b, c] = [email(), email(), mobile()];
    const ext = { source: 'crm', id: unique() };
    const byExternal = (await post({ email: a, external: ext })).data.reference;
    const byEmail = (await post({ email: b })).data.reference;
    const byPhone = (await post({ phone: `+97150${c}` })).data.reference;
    expect((await post({ email: b, phone: `+97150${c}`, external: ext })).data.reference).toBe(byExternal);
    expect((await post({ email: b, phone: `+97150${c}` })).data.reference).toBe(byEmail);
    expect((await post({ email: email(), phone: `+97150${c}` })).data.reference).toBe(byPhone);
  });

  it('fills empty fields, never overwrites, and records contact.updated only when something was filled', async () => {
    const address = email();
    const digits = mobile();
    const first = await post({ email: address, name: 'First Name', roles: ['buyer'] });
    const reference = first.data.reference;
    const filled = await post({ email: address, name: 'Other Name', phone: `050${digits}`, language: 'ar', roles: ['seller'] });
    expect(filled.status).toBe(200);
    expect(filled.data).toMatchObject({ reference, name: 'First Name', phone: `+97150${digits}`, language: 'ar' });
    expect(filled.data.roles).toEqual(['buyer', 'seller']);
    expect(await events('contact.updated', reference)).toHaveLength(1);
    const same = await post({ email: address, name: 'Third Name', language: 'en', roles: ['buyer'] });
    expect(same.data).toMatchObject({ name: 'First Name', language: 'ar', updated_at: filled.data.updated_at });
    expect(await events('contact.updated', reference)).toHaveLength(1);
  });

  it("links the external id of a match, and leaves another person's email or phone with them", async () => {
    const [a, b] = [email(), email()];
    const owner = (await post({ email: b })).data.reference;
    const ext = { source: 'crm', id: unique() };
    const linked = await post({ email: a, external: ext });
    const matched = await post({ external: ext, email: b });
    expect(matched.status).toBe(200);
    expect(matched.data).toMatchObject({ reference: linked.data.reference, email: a });
    const plain = (await post({ phone: `+97150${mobile()}` })).data.reference;
    const withId = await post({ phone: (await getOne(plain)).data.phone ?? undefined, external: { source: 'erp', id: '7' } });
    expect([withId.status, withId.data.external]).toEqual([200, [{ source: 'erp', id: '7' }]]);
    expect(await events('contact.updated', plain)).toHaveLength(1);
    expect((await list({ external: 'erp:7' })).data.results.map((r) => r.reference)).toEqual([plain]);
    expect(owner).not.toBe(linked.data.reference);
  });

  it('never matches an erased person: a new one is created and takes over the external id', async () => {
    const address = email();
    const ext = { source: 'crm', id: unique() };
    const first = (await post({ email: address, external: ext })).data.reference;
    const { id } = await api.db.selectFrom('contacts').select('id').where('reference', '=', first).executeTakeFirstOrThrow();
    await eraseContact(api.db, company.id, id, { causedBy: 'admin', now: api.clock.now() });
    const erased = await getOne(first);
    expect(erased.data).toMatchObject({ erased: true, name: null, email: null, phone: null });
    const again = await post({ email: address, external: ext });
    expect(again.status).toBe(201);
    expect(again.data.reference).not.toBe(first);
    expect((await list({ external: `crm:${ext.id}` })).data.results.map((r) => r.reference)).toEqual([again.data.reference]);
    const refused = await patch(first, { name: 'Back' });
    expect([refused.status, refused.error.code]).toEqual([409, 'conflict']);
  });
});

describe('PATCH /contacts/{reference}', () => {
  it('changes name and language, keeps the client id so ?external= finds it, and records contact.updated', async () => {
    const reference = (await post({ email: email(), name: 'Old' })).data.reference;
    const id = `deal:${unique()}`; // ids may contain colons
    const res = await patch(reference, { name: 'New', language: 'en', external: { source: 'pipedrive', id } });
    expect(res.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data).toMatchObject({ reference, name: 'New', language: 'en', external: [{ source: 'pipedrive', id }] });
    const found = await list({ external: `pipedrive:${id}` });
    expect(found.data.results.map((r) => r.reference)).toEqual([reference]);
    expect(await events('contact.updated', reference)).toHaveLength(1);
    const again = await patch(reference, { external: { source: 'pipedrive', id } });
    expect([again.status, again.data.updated_at]).toEqual([200, res.data.updated_at]);
    expect(await events('contact.updated', reference)).toHaveLength(1);
    expect((await patch(reference, { name: null })).data.name).toBeNull();
  });

  it('takes a TRN of the published shape (100…03), refuses any other at the field, and erasure removes it', async () => {
    const reference = (await post({ email: email(), name: 'Gulf Trading LLC' })).data.reference;
    const res = await patch(reference, { trn: '100445566700003' });
    expect([res.status, res.data.trn]).toEqual([200, '100445566700003']);
    for (const trn of ['100445566700001', '200445566700003', '10044556670003', ' 100445566700003', '١٠٠٤٤٥٥٦٦٧٠٠٠٠٣']) {
      const refused = await patchAny(reference, { trn });
      expect(refused.response.status, trn).toBe(400);
      expect(refused.error).toMatchObject({ errors: [{ path: 'trn', code: 'invalid_trn' }] });
    }
    expect((await getOne(reference)).data.trn).toBe('100445566700003');
    const { id } = await api.db.selectFrom('contacts').select('id').where('reference', '=', reference).executeTakeFirstOrThrow();
    await eraseContact(api.db, company.id, id, { causedBy: 'admin', now: api.clock.now() });
    expect((await getOne(reference)).data).toMatchObject({ erased: true, trn: null });
    expect((await patch(reference, { trn: null })).status).toBe(409);
  });

  it('refuses other fields (400), an id of another person (409) and an unknown reference (404)', async () => {
    const reference = (await post({ email: email() })).data.reference;
    expect((await patchAny(reference, { email: email() })).response.status).toBe(400);
    const taken = { source: 'crm', id: unique() };
    await post({ email: email(), external: taken });
    expect((await patch(reference, { external: taken })).status).toBe(409);
    expect((await patch('P-0000000000', { name: 'X' })).status).toBe(404);
  });
});

describe('GET /contacts', () => {
  it('lists by (updated_at, id), pages with a cursor, and shows the leads of each person', async () => {
    const mine: string[] = [];
    for (let i = 0; i < 5; i++) mine.push((await post({ email: email() })).data.reference);
    const { id } = await api.db.selectFrom('contacts').select('id').where('reference', '=', mine[0]!).executeTakeFirstOrThrow();
    const leads = [newReference('L'), newReference('L')];
    // A person's leads are shown oldest first. Their times are set a second apart: two inserts within one
    // millisecond (PGlite's clock) would tie, and the tie is broken by the random id.
    const first = Date.now() - 60_000;
    for (const [i, reference] of leads.entries()) {
      await api.db
        .insertInto('leads')
        .values({
          company_id: company.id,
          reference,
          contact_id: id,
          caused_by: 'website',
          created_at: new Date(first + i * 1000),
        })
        .execute();
    }
    const seen: Array<components['schemas']['Contact']> = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page = await list({ page_size: 7, cursor: cursor || undefined });
      expect(page.status, JSON.stringify(page.error)).toBe(200);
      expect(page.data.results.length).toBeLessThanOrEqual(7);
      seen.push(...page.data.results);
      cursor = page.data.next_cursor;
    }
    const keys = seen.map((c) => `${c.updated_at}|${c.reference}`);
    expect(new Set(keys).size).toBe(seen.length);
    const times = seen.map((c) => c.updated_at);
    expect(times).toEqual([...times].sort());
    expect(seen.map((c) => c.reference)).toEqual(expect.arrayContaining(mine));
    expect(seen.find((c) => c.reference === mine[0])?.leads).toEqual(leads);
    expect((await list({ external: 'nobody:1' })).data).toEqual({ results: [], next_cursor: null });
    expect((await list({ cursor: 'bogus' })).error.code).toBe('invalid_cursor');
  });

  it('with updated_since, includes records changed at or after the instant and excludes older ones', async () => {
    // A company of this test alone, so the list holds only its records; their times are set, not waited for.
    const own = await createCompany(api);
    const keys = {
      write: await createKey(api, own.id, { scopes: ['write:contacts'] }),
      read: await createKey(api, own.id, { scopes: ['read:contacts'] }),
    };
    const [ownWrites, ownReads] = [clientOf(own.host, keys.write.secret), clientOf(own.host, keys.read.secret)];
    const add = async (at: Date) => {
      const reference = (await post({ email: email() }, ownWrites)).data.reference;
      await setUpdatedAt(api.db, 'contacts', { companyId: own.id, column: 'reference', value: reference }, at);
      return reference;
    };
    const since = new Date('2025-06-01T12:00:00.000Z');
    const older = await add(new Date(since.getTime() - 1));
    const changed = await add(new Date(since.getTime() - 1000));
    const atSince = await add(since);
    const patched = await ownWrites.PATCH('/api/v1/contacts/{reference}', {
      params: { path: { reference: changed } },
      body: { name: 'Changed later' },
    });
    expect(patched.response.status).toBe(200);
    const res = await list({ updated_since: since.toISOString(), page_size: 100 }, ownReads);
    // In updated_at order: the one set at the instant, then the one the PATCH moved to the database's now.
    expect(res.data.results.map((c) => c.reference)).toEqual([atSince, changed]);
    expect(res.data.results.map((c) => c.reference)).not.toContain(older);
    expect((await list({ updated_since: 'yesterday' })).status).toBe(400);
  });

  it('GET /contacts/{reference} answers one person, 404 for an unknown one or another company’s', async () => {
    const reference = (await post({ email: email(), name: 'One' })).data.reference;
    expect((await getOne(reference)).data).toMatchObject({ reference, name: 'One' });
    expect((await getOne('P-0000000000')).status).toBe(404);
    const other = await createCompany(api);
    const key = (await createKey(api, other.id, { scopes: ['read:contacts'] })).secret;
    expect((await getOne(reference, clientOf(other.host, key))).status).toBe(404);
  });
});

describe('the audit log of personal data reads', () => {
  const auditRows = async (prefix: string) =>
    (
      await adminOf(api).GET('/admin/v1/companies/{company_id}/audit-log', {
        params: { path: { company_id: company.id }, query: { action: 'personal_data.read', page_size: 100 } },
      })
    ).data?.results.filter((r) => r.subject === prefix) ?? [];

  it('writes one personal_data.read row per request with the key prefix and every reference returned', async () => {
    for (let i = 0; i < 3; i++) await post({ email: email() });
    const key = await createKey(api, company.id, { scopes: ['read:contacts'] });
    const keyReads = clientOf(company.host, key.secret);
    const page = await list({ page_size: 3 }, keyReads);
    const references = page.data.results.map((c) => c.reference);
    expect(references).toHaveLength(3);
    let rows = await auditRows(key.prefix);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actor: `api:${key.prefix}`, subject: key.prefix, details: { references } });
    await getOne(references[1]!, keyReads);
    rows = await auditRows(key.prefix);
    expect(rows).toHaveLength(2);
    expect(rows[0]?.details.references).toEqual([references[1]]);
    await list({ external: 'nobody:1' }, keyReads); // nothing returned, nothing to record
    expect(await auditRows(key.prefix)).toHaveLength(2);
  });

  it('writes one row per POST: a new person (added with its read) and a person matched and filled', async () => {
    const key = await createKey(api, company.id, { scopes: ['write:contacts'] });
    const keyWrites = clientOf(company.host, key.secret);
    const sent = email();
    const added = await post({ email: sent }, keyWrites);
    expect(added.status).toBe(201);
    let rows = await auditRows(key.prefix);
    expect(rows.map((r) => r.details.references)).toEqual([[added.data.reference]]);
    const matched = await post({ email: sent.toUpperCase(), name: 'Filled' }, keyWrites);
    expect(matched.status).toBe(200);
    rows = await auditRows(key.prefix);
    expect(rows.map((r) => r.details.references)).toEqual([[added.data.reference], [added.data.reference]]);
  });
});

describe('20 concurrent identical POSTs', () => {
  it.each([
    ['the same external id', () => ({ external: { source: 'crm', id: unique() }, name: 'Racer' })],
    ['the same email, without external id', () => ({ email: email(), name: 'Racer' })],
  ])('give exactly one person for %s: one 201 and nineteen 200', async (_, body) => {
    const racers = async () =>
      Number(
        (
          await api.db
            .selectFrom('contacts')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('company_id', '=', company.id)
            .where('name', '=', 'Racer')
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await racers();
    const sent = body();
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(sent)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses, answers.map((a) => JSON.stringify(a.error)).join('\n')).toEqual([...Array(19).fill(200), 201]);
    const references = new Set(answers.map((a) => a.data.reference));
    expect(references.size).toBe(1);
    expect(await racers()).toBe(before + 1);
    expect(await events('contact.created', [...references][0] as string)).toHaveLength(1);
  });
});

import { base64url } from 'jose';
import { describe, expect, it } from 'vitest';
import type { TestApi } from '../support/harness';
import {
  enquiry,
  errorPaths,
  expectRefused,
  type FormCompany,
  formsForFile,
  postForm,
  readLead,
  site,
  type Verifier,
} from './support';

let api: TestApi;
let verifier: Verifier;
let company: FormCompany;
formsForFile((file) => ({ api, verifier, company } = file), { origins: [site, 'https://blog.example.com'] });

/** Posts from the browser and reads the lead back with the server key. */
async function sendAndRead(extra: Record<string, unknown>) {
  const res = await postForm(api, company, enquiry(verifier, extra));
  expect(res.status, res.text).toBe(201);
  const read = await readLead(api, company, res.json.reference);
  expect(read.status, read.text).toBe(200);
  return read.json;
}

const refuse = (body: unknown) => expectRefused(api, company.id, 400, 'invalid_request', () => postForm(api, company, body));

describe('consent and contact', () => {
  it.each([
    ['consent missing', { consent: undefined }, 'consent'],
    ['consent false', { consent: false }, 'consent'],
    ['consent_version missing', { consent_version: undefined }, 'consent_version'],
    ['consent_version blank', { consent_version: '  ' }, 'consent_version'],
    ['neither email nor phone', { email: undefined }, 'email'],
  ])('refuses %s with 400 at its path', async (_name, change, path) => {
    const res = await refuse(enquiry(verifier, change));
    expect(errorPaths(res)).toContain(path);
  });
});

describe('page, listing, service and form', () => {
  it("keeps a page on one of the key's origins without credentials, query or fragment", async () => {
    const lead = await sendAndRead({ page: 'https://user:pw@www.example.com/en/contact?utm=x#f' });
    expect(lead.page).toBe('https://www.example.com/en/contact');
    // Any origin of the key, not only the one the request came from.
    expect((await sendAndRead({ page: 'https://blog.example.com/post/1' })).page).toBe('https://blog.example.com/post/1');
  });

  it('does not keep a page of another origin (null), and still records the enquiry', async () => {
    for (const page of ['https://evil.example.net/en/contact', 'http://www.example.com/en/contact', 'not a page']) {
      expect((await sendAndRead({ page })).page, page).toBeNull();
    }
  });

  it('finds the listing by its Arabic slug and shows its English slug; ignores an unknown slug', async () => {
    expect((await sendAndRead({ listing: 'مارينا-جيت-غرفتين-اطلالة-بحرية' })).listing).toBe('marina-gate-2br-sea-view');
    expect((await sendAndRead({ listing: 'no-such-home' })).listing).toBeNull();
  });

  it('keeps a service key the list does not have yet', async () => {
    expect((await sendAndRead({ service: 'rooftop-garden-advice' })).service).toBe('rooftop-garden-advice');
  });

  it('refuses a form name with capitals (400 at form)', async () => {
    const res = await refuse(enquiry(verifier, { form: 'Contact-Form' }));
    expect(errorPaths(res)).toEqual(['form']);
  });
});

describe('details', () => {
  it('refuses more than 20 keys (400 at details)', async () => {
    const details = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`answer_${i}`, i]));
    const res = await refuse(enquiry(verifier, { details }));
    expect(errorPaths(res)).toEqual(['details']);
  });

  // Issue 9: words joined, other languages. Contact keys are refused too, with their own code.
  it.each([
    ...['passport_no', 'cvv', 'pass_word', 'emirates_id', 'card_number', 'creditcardnumber', 'cardpin', 'cvvcode'],
    ...['mastercard', 'amex', 'kreditkarte', 'mypassword', 'passwort', 'passportid', 'idpassport', 'jawaz_safar'],
    ...['kalimatsir', 'motdepasse', 'cartedecredit', 'personalausweis', 'geheimzahl'],
  ])('refuses the key %s', async (key) => {
    const res = await refuse(enquiry(verifier, { details: { purpose: 'sale', [key]: 'x' } }));
    expect(res.json.errors).toEqual([{ path: `details.${key}`, code: 'forbidden_key', message: expect.any(String) }]);
  });

  it.each(['telephonenumber', 'mobilephone', 'emailid', 'emails', 'raqam_hatif', 'courriel', 'handynummer'])(
    'refuses the contact key %s (contact_details)',
    async (key) => {
      const res = await refuse(enquiry(verifier, { details: { [key]: 'x' } }));
      expect(res.json.errors).toEqual([{ path: `details.${key}`, code: 'contact_details', message: expect.any(String) }]);
    },
  );

  it.each(['__proto__', 'constructor', 'prototype'])('refuses the key %s, sent as raw JSON, and records nothing', async (key) => {
    const body = JSON.stringify(enquiry(verifier)).replace(/}$/, `,"details":{"${key}":{"x":1}}}`);
    const res = await refuse(body);
    expect(res.json.errors).toEqual([{ path: `details.${key}`, code: 'forbidden_key', message: expect.any(String) }]);
  });

  it('accepts innocent keys that contain forbidden letters', async () => {
    const details = {
      postcard: 'yes',
      spinning_room: true,
      idea: 'a quiet street',
      postcode: 'SW1',
      card_table: true,
      passengers: 3,
      compass: 'north',
      identity_of_property: 'villa 12',
      mobile_home: false,
    };
    expect((await sendAndRead({ details })).details).toEqual(details);
  });

  it.each([
    ['a card number', '4111 1111 1111 1111', 'card_number'],
    ['an email address', 'reach me at mira@example.com', 'contact_details'],
    ['a phone number', 'call +971 50 123 4567', 'contact_details'],
  ])('refuses %s in a value', async (_name, value, code) => {
    const res = await refuse(enquiry(verifier, { details: { note: value } }));
    expect(res.json.errors).toEqual([{ path: 'details.note', code, message: expect.any(String) }]);
  });

  it('stores details only as a compact JWE and shows them decrypted to a server key', async () => {
    const details = { note: 'corner-unit-please', floors: ['high', 'mid'], parking: 2 };
    const lead = await sendAndRead({ details });
    expect(lead.details).toEqual(details);
    const row = await api.db.selectFrom('leads').selectAll().where('reference', '=', lead.reference).executeTakeFirstOrThrow();
    const parts = (row.details_jwe as string).split('.');
    expect(parts).toHaveLength(5);
    const header = JSON.parse(new TextDecoder().decode(base64url.decode(parts[0] as string)));
    expect(header).toMatchObject({ alg: 'dir', enc: 'A256GCM' });
    for (const plain of ['corner-unit-please', 'floors', 'parking']) expect(JSON.stringify(row)).not.toContain(plain);
  });
});

describe('body size', () => {
  it('refuses a body over 64 KiB with 413 payload_too_large', async () => {
    const body = enquiry(verifier, { message: 'x'.repeat(65 * 1024) });
    await expectRefused(api, company.id, 413, 'payload_too_large', () => postForm(api, company, body));
  });
});

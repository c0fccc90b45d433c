import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../lib/crypto';
import { adminBooking, bookingBody, type Ctx, newHome, postBooking, setup, stays } from '../stay/support';
import { createKey } from '../support/world';
import { postLead } from './support';

/**
 * A server's enquiry (server key) matches the person inside its one statement (lib/people.ts personCtes) by the rules
 * POST /contacts follows in a transaction (lib/people.ts matchOrCreateContact): email (case-insensitive) before phone,
 * erased people never, empty fields filled but never one that has a value, and an email or phone that is another
 * person's left to them. An enquiry always records `contact.updated` for a known person (their leads changed). A
 * visitor's booking is matched by the visitor rule (test/forms/visitors.test.ts has every case): never filled.
 */
let ctx: Ctx;
let writer: string;
let home: string;
const nights = stays(200);

beforeAll(async () => {
  ctx = await setup();
  writer = (await createKey(ctx.api, ctx.company.id, { scopes: ['write:leads'] })).secret;
  home = await newHome(ctx);
});
afterAll(() => ctx.api.close());

const unique = () => randomToken(8).toLowerCase();
let serial = 0;
/** A UAE mobile number of this test run alone. */
const phone = () => `+97155${String(1_000_000 + ((Date.now() + serial++ * 7919) % 8_999_999)).padStart(7, '0')}`;

type Person = { name?: string | null; email?: string | null; phone?: string | null; language?: string | null; erased?: boolean };

/** A person of the company, as another path (an import, staff) stored them. */
async function person(fields: Person) {
  const reference = `P-${randomToken(10).toUpperCase()}`;
  await ctx.api.db
    .insertInto('contacts')
    .values({
      company_id: ctx.company.id,
      reference,
      name: fields.name ?? null,
      email: fields.email ?? null,
      email_key: fields.email?.toLowerCase() ?? null,
      phone: fields.phone ?? null,
      phone_key: fields.phone ?? null,
      language: fields.language ?? null,
      erased: fields.erased ?? false,
    })
    .execute();
  return reference;
}

const contact = (reference: string) =>
  ctx.api.db
    .selectFrom('contacts')
    .select(['name', 'email', 'email_key', 'phone', 'language', sql<number>`version::integer`.as('version')])
    .where('reference', '=', reference)
    .executeTakeFirstOrThrow();

const updates = async (reference: string) =>
  (
    await ctx.api.db
      .selectFrom('events')
      .select('id')
      .where('company_id', '=', ctx.company.id)
      .where('type', '=', 'contact.updated')
      .where(sql<boolean>`data->>'reference' = ${reference}`)
      .execute()
  ).length;

/** An enquiry with the server key (trusted: no origin or spam check); answers the person's reference. */
async function enquiry(fields: { name?: string; email?: string; phone?: string; language?: string }) {
  const res = await postLead(ctx.api, ctx.company.host, writer, { consent: true, consent_version: '2026-01', ...fields });
  expect(res.status, res.text).toBe(201);
  return res.json.person as string;
}

describe('an enquiry’s person', () => {
  it('is the one with the email before the one with the phone; the phone stays its holder’s', async () => {
    const email = `${unique()}@example.com`;
    const mobile = phone();
    // The phone's holder first: stored first, it would come first without the email's precedence.
    const byPhone = await person({ name: 'Omar', phone: mobile });
    const byEmail = await person({ name: 'Sara', email });
    expect(await enquiry({ name: 'Someone', email: email.toUpperCase(), phone: mobile })).toBe(byEmail);
    expect(await contact(byEmail)).toMatchObject({ name: 'Sara', email, phone: null });
    expect(await contact(byPhone)).toMatchObject({ name: 'Omar', email: null, phone: mobile, version: 1 });
    expect(await updates(byEmail)).toBe(1);
    expect(await updates(byPhone)).toBe(0);
  });

  it('is found by phone when no one has the email, and gets the email and the name, never a new language', async () => {
    const mobile = phone();
    const found = await person({ phone: mobile, language: 'ar' });
    const email = `${unique()}@Example.com`;
    expect(await enquiry({ name: 'Nadia', email, phone: mobile, language: 'en' })).toBe(found);
    expect(await contact(found)).toMatchObject({ name: 'Nadia', email, email_key: email.toLowerCase(), language: 'ar' });
    expect(await updates(found)).toBe(1);
  });

  it('is never an erased person, and an email an erased person still holds is not given to the match', async () => {
    const mobile = phone();
    const email = `${unique()}@example.com`;
    const erased = await person({ email, erased: true });
    const byPhone = await person({ phone: mobile });
    expect(await enquiry({ email, phone: mobile })).toBe(byPhone);
    expect(await contact(byPhone)).toMatchObject({ email: null, phone: mobile });
    expect(await contact(erased)).toMatchObject({ email, version: 1 });
  });
});

describe('a booking’s guest (a visitor: matched, never filled)', () => {
  const book = async (email: string, name: string) => {
    const res = await postBooking(ctx, bookingBody(home, ...nights(), { email, name }));
    expect(res.status, res.text).toBe(201);
    return res;
  };

  it('is the person with the email, whose empty name stays empty: the name is kept on the booking', async () => {
    const email = `${unique()}@example.com`;
    const guest = await person({ email });
    const res = await book(email.toUpperCase(), 'Layla Guest');
    expect(await contact(guest)).toMatchObject({ name: null, version: 1 });
    expect(await updates(guest)).toBe(0);
    const booking = (await adminBooking(ctx, res.json.reference)).json;
    expect(booking).toMatchObject({ person: guest, sent: { name: 'Layla Guest', email: email.toUpperCase(), phone: null } });
  });
});

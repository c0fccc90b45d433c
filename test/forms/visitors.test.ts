import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { developmentToken } from '../../lib/spam-check';
import {
  adminBooking,
  answer,
  bookingBody,
  type Ctx,
  newHome,
  origin,
  postBooking,
  publishableKey,
  setup,
  stays,
} from '../stay/support';
import { type TestClient, testClient } from '../support/client';
import { createKey } from '../support/world';

/**
 * Anonymous senders are never merged into someone else (issue 21, defect 7; docs/api-reference.md "Matching
 * people"). For a publishable key's enquiry (POST /leads) and booking request (POST /bookings) alike: the person with
 * the email is the visitor's; the person with the phone only when no email was sent; otherwise a new person, and when
 * the phone is another person's the two are marked as possible duplicates (on both people). A visitor never fills
 * or changes a person already known; what they sent stays on the lead or booking (`sent`).
 */
let ctx: Ctx;
let pk: string;
/** The typed client on a server key that reads leads and contacts and writes contacts (a CRM's). */
let server: TestClient;
let home: string;
const nights = stays(60);

beforeAll(async () => {
  ctx = await setup();
  pk = await publishableKey(ctx.api, ctx.company.id, ['enquiry', 'booking']);
  const key = await createKey(ctx.api, ctx.company.id, { scopes: ['read:leads', 'read:contacts', 'write:contacts'] });
  server = testClient(ctx.api, { host: ctx.company.host, serverKey: key.secret });
  home = await newHome(ctx);
});
afterAll(() => ctx.api.close());

let serial = 0;
/** A mobile number of this file alone, as dialled in the company's country, and its E.164. */
function mobile() {
  const digits = String(4_000_000 + serial++ * 7).padStart(7, '0');
  return { dialled: `050 ${digits.slice(0, 3)} ${digits.slice(3)}`, e164: `+97150${digits}` };
}
const email = () => `visitor.${Date.now().toString(36)}.${serial++}@example.com`;

/** A person known to the company (added by its CRM sync): the person a visitor might be merged into. */
async function known(fields: { name?: string; email?: string; phone?: string }) {
  const res = await answer(server.POST('/api/v1/contacts', { body: fields }));
  expect(res.status, res.text).toBe(201);
  return res.json.reference as string;
}
const contact = async (reference: string) =>
  (await answer(server.GET('/api/v1/contacts/{reference}', { params: { path: { reference } } }))).json;

type Sent = { name: string; email?: string; phone?: string };
type Recorded = { person: string; sent: { name: string | null; email: string | null; phone: string | null } };

const paths: Record<'enquiry' | 'booking', (sent: Sent) => Promise<Recorded>> = {
  async enquiry(sent) {
    const page = testClient(ctx.api, { host: ctx.company.host, publishableKey: pk, headers: { Origin: origin } });
    const res = await answer(
      page.POST('/api/v1/leads', {
        body: { consent: true, consent_version: '2026-01', challenge: developmentToken, website: '', ...sent } as never,
      }),
    );
    expect(res.status, res.text).toBe(201);
    return (await answer(server.GET('/api/v1/leads/{reference}', { params: { path: { reference: res.json.reference } } }))).json;
  },
  async booking(sent) {
    const res = await postBooking({ ...ctx, pk }, bookingBody(home, ...nights(), { email: undefined, ...sent }));
    expect(res.status, res.text).toBe(201);
    return (await adminBooking(ctx, res.json.reference)).json;
  },
};

describe.each(['enquiry', 'booking'] as const)('a visitor’s %s', (path) => {
  const send = paths[path];

  it('from Sam, with the phone of Nora who gave no email, is not Nora’s: Sam is a new person, both marked', async () => {
    const phone = mobile();
    const sam = email();
    const nora = await known({ name: 'Nora', phone: phone.dialled });
    const record = await send({ name: 'Sam', email: sam, phone: phone.dialled });
    expect(record.person).not.toBe(nora);
    expect(record.sent).toMatchObject({ name: 'Sam', email: sam, phone: phone.dialled });
    const samPerson = await contact(record.person);
    expect(samPerson).toMatchObject({ name: 'Sam', email: sam, phone: phone.e164 });
    expect(samPerson.possible_duplicates).toEqual([{ person: nora, reason: 'same_phone', since: expect.any(String) }]);
    const noraPerson = await contact(nora);
    expect(noraPerson).toMatchObject({ name: 'Nora', email: null, phone: phone.e164 });
    expect(noraPerson.possible_duplicates).toEqual([{ person: record.person, reason: 'same_phone', since: expect.any(String) }]);
  });

  /** Each case: what the known person has, what the visitor sends, and whose the record is. */
  const cases: Array<{
    title: string;
    has: { email: boolean; phone: boolean };
    sends: { email: 'same' | 'other' | 'none'; phone: 'same' | 'other' | 'none' };
    theirs: boolean;
    marked: boolean;
  }> = [
    {
      title: 'the same email and phone',
      has: { email: true, phone: true },
      sends: { email: 'same', phone: 'same' },
      theirs: true,
      marked: false,
    },
    {
      title: 'the same email, another phone',
      has: { email: true, phone: true },
      sends: { email: 'same', phone: 'other' },
      theirs: true,
      marked: false,
    },
    {
      title: 'the same email, no phone',
      has: { email: true, phone: true },
      sends: { email: 'same', phone: 'none' },
      theirs: true,
      marked: false,
    },
    {
      title: 'another email, the same phone',
      has: { email: true, phone: true },
      sends: { email: 'other', phone: 'same' },
      theirs: false,
      marked: true,
    },
    {
      title: 'another email and phone',
      has: { email: true, phone: true },
      sends: { email: 'other', phone: 'other' },
      theirs: false,
      marked: false,
    },
    {
      title: 'another email, no phone',
      has: { email: true, phone: true },
      sends: { email: 'other', phone: 'none' },
      theirs: false,
      marked: false,
    },
    {
      title: 'no email, the same phone',
      has: { email: true, phone: true },
      sends: { email: 'none', phone: 'same' },
      theirs: true,
      marked: false,
    },
    {
      title: 'no email, another phone',
      has: { email: true, phone: true },
      sends: { email: 'none', phone: 'other' },
      theirs: false,
      marked: false,
    },
    {
      title: 'an email to a person of phone only, the same phone',
      has: { email: false, phone: true },
      sends: { email: 'other', phone: 'same' },
      theirs: false,
      marked: true,
    },
    {
      title: 'no email to a person of phone only, the same phone',
      has: { email: false, phone: true },
      sends: { email: 'none', phone: 'same' },
      theirs: true,
      marked: false,
    },
    {
      title: 'an email to a person of phone only, another phone',
      has: { email: false, phone: true },
      sends: { email: 'other', phone: 'other' },
      theirs: false,
      marked: false,
    },
    {
      title: 'the same email to a person of email only, a phone',
      has: { email: true, phone: false },
      sends: { email: 'same', phone: 'other' },
      theirs: true,
      marked: false,
    },
    {
      title: 'no email to a person of email only, a phone',
      has: { email: true, phone: false },
      sends: { email: 'none', phone: 'other' },
      theirs: false,
      marked: false,
    },
    {
      title: 'another email to a person of email only, no phone',
      has: { email: true, phone: false },
      sends: { email: 'other', phone: 'none' },
      theirs: false,
      marked: false,
    },
  ];

  it.each(cases)('with $title: $theirs for the known person, marked $marked', async ({ has, sends, theirs, marked }) => {
    const [own, other] = [mobile(), mobile()];
    const [ownEmail, otherEmail] = [email(), email()];
    const reference = await known({
      name: 'Nora',
      ...(has.email ? { email: ownEmail } : {}),
      ...(has.phone ? { phone: own.dialled } : {}),
    });
    const before = await contact(reference);
    const sent: Sent = { name: 'Sam' };
    if (sends.email !== 'none') sent.email = sends.email === 'same' ? ownEmail.toUpperCase() : otherEmail;
    if (sends.phone !== 'none') sent.phone = sends.phone === 'same' ? own.dialled : other.dialled;
    const record = await send(sent);
    // What the visitor sent is kept as sent, whoever the person is.
    expect(record.sent).toMatchObject({ name: 'Sam', email: sent.email ?? null, phone: sent.phone ?? null });
    expect(record.person === reference).toBe(theirs);
    // The known person is never changed: no field filled or overwritten (their answer lists a new lead or mark).
    const after = await contact(reference);
    expect({ ...after, leads: [], possible_duplicates: [], updated_at: '' }).toEqual({
      ...before,
      leads: [],
      possible_duplicates: [],
      updated_at: '',
    });
    if (!theirs) {
      const added = await contact(record.person);
      expect(added).toMatchObject({ name: 'Sam', email: sent.email ?? null });
      // The phone is shown on the new person even when another person holds it (not as their matching key).
      expect(added.phone).toBe(sends.phone === 'none' ? null : sends.phone === 'same' ? own.e164 : other.e164);
    }
    const marks = marked ? [{ person: record.person, reason: 'same_phone', since: expect.any(String) }] : [];
    expect(after.possible_duplicates).toEqual(marks);
    if (!theirs) {
      expect((await contact(record.person)).possible_duplicates).toEqual(
        marked ? [{ person: reference, reason: 'same_phone', since: expect.any(String) }] : [],
      );
    }
  });

  it('with the email of one person and the phone of another: the email’s person, the two marked', async () => {
    const phone = mobile();
    const address = email();
    const byEmail = await known({ name: 'Nora', email: address });
    const byPhone = await known({ name: 'Omar', phone: phone.dialled });
    const record = await send({ name: 'Sam', email: address, phone: phone.dialled });
    expect(record.person).toBe(byEmail);
    expect(await contact(byEmail)).toMatchObject({ name: 'Nora', phone: null });
    expect((await contact(byEmail)).possible_duplicates).toEqual([
      { person: byPhone, reason: 'same_phone', since: expect.any(String) },
    ]);
    expect((await contact(byPhone)).possible_duplicates).toEqual([
      { person: byEmail, reason: 'same_phone', since: expect.any(String) },
    ]);
    // A second time changes nothing more: the pair is marked once.
    await send({ name: 'Sam', email: address, phone: phone.dialled });
    expect((await contact(byPhone)).possible_duplicates).toHaveLength(1);
  });

  it('never fills an empty field of the person it matched', async () => {
    const address = email();
    const reference = await known({ email: address });
    const phone = mobile();
    const record = await send({ name: 'Sam', email: address, phone: phone.dialled });
    expect(record.person).toBe(reference);
    expect(await contact(reference)).toMatchObject({ name: null, email: address, phone: null });
  });
});

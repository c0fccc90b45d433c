import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { developmentToken } from '../../lib/spam-check';
import { redactedCard } from '../../schema/common/card-numbers';
import { type Ctx, bookingBody, day, newHome, origin, postBooking, setup } from '../stay/support';
import {
  adReferral,
  deliver,
  useInboundWorld,
  metaSignature,
  propertyFinderLead,
  propertyFinderSignature,
  readLead,
  standardHeaders,
  waId,
  wamid,
  whatsAppText,
} from './inbound-support';
import { answer } from '../stay/support';
import { testClient } from '../support/client';
import { createKey } from '../support/world';

/**
 * One redaction for every text that arrives from outside (schema/common/card-numbers.ts): the inbound channels (names —
 * kept on the person too —, messages, a WhatsApp ad's headline and body, the listing reference, details values), the
 * browser forms (POST /leads and POST /bookings, where a card is refused where the docs say it is) and a server's
 * POST /leads. After each, no row of the company in any table holds a card's digits, in any script.
 */
const world = useInboundWorld();
let forms: Ctx;

beforeAll(async () => {
  forms = await setup({ api: world.api });
});

/** A Luhn-valid 16-digit number from 15 digits (its check digit computed). */
function card(body: string): string {
  for (let check = 0; check < 10; check++) {
    const digits = `${body}${check}`;
    const sum = Array.from(digits)
      .reverse()
      .reduce((s, c, i) => s + (i % 2 === 1 ? (Number(c) * 2 > 9 ? Number(c) * 2 - 9 : Number(c) * 2) : Number(c)), 0);
    if (sum % 10 === 0) return digits;
  }
  throw new Error('no check digit');
}

const scripts = { ascii: 0x30, arabicIndic: 0x660, persian: 0x6f0, fullWidth: 0xff10 };
/** A card's digits in a script, in blocks of 4 joined by `separator`. */
const written = (digits: string, script: keyof typeof scripts, separator = ' ') =>
  (digits.match(/.{1,4}/g) as string[])
    .map((block) => Array.from(block, (d) => String.fromCodePoint(scripts[script] + Number(d))).join(''))
    .join(separator);

let serial = 0;
/** A new card for each use, so that each can be looked for alone. */
const fresh = () => card(`4${String(Date.now() % 1e7).padStart(7, '0')}${String(serial++).padStart(7, '0')}`);

/** The digits of a text in ASCII, everything else dropped (the scripts above and ASCII read alike). */
const digitsOf = (text: string) =>
  Array.from(text)
    .map((char) => {
      const code = char.codePointAt(0) as number;
      for (const zero of Object.values(scripts)) if (code >= zero && code < zero + 10) return String(code - zero);
      return '';
    })
    .join('');

/** Every row of the company, in every table that names a company, as JSON text. */
async function storedRows(companyId: string): Promise<string[]> {
  const { rows: tables } = await sql<{ table_name: string }>`
    select distinct table_name from information_schema.columns
    where table_schema = current_schema() and column_name = 'company_id'`.execute(world.api.db);
  const rows: string[] = [];
  for (const { table_name } of tables) {
    const { rows: found } = await sql<{ row: string }>`
      select row_to_json(t)::text as row from ${sql.table(table_name)} t where t.company_id = ${companyId}::uuid`.execute(
      world.api.db,
    );
    rows.push(...found.map((r) => `${table_name}: ${r.row}`));
  }
  return rows;
}

/** That no stored row of the company holds any of these cards' digits (a row's digits read in one run). */
async function expectNowhere(companyId: string, cards: string[]) {
  const rows = await storedRows(companyId);
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) for (const digits of cards) expect(digitsOf(row), row).not.toContain(digits);
}

describe('inbound channels', () => {
  it('WhatsApp: the name on the lead and on the person, the text, the ad’s headline and body, a conversation’s message', async () => {
    const [name, text, headline, body, later] = [fresh(), fresh(), fresh(), fresh(), fresh()];
    const from = waId();
    const first = whatsAppText(from, wamid(), `Card ${written(text, 'ascii')} 123 please`, new Date(), {
      referral: { ...adReferral, headline: `Call ${written(headline, 'fullWidth')}`, body: `Pay ${written(body, 'ascii', '.')}` },
    }).replace('"Layla Haddad"', JSON.stringify(`Layla ${written(name, 'arabicIndic')}`));
    const sent = await deliver(world, world.channels.whatsapp.path, first, { 'X-Hub-Signature-256': metaSignature(first) });
    expect(sent.status, sent.text).toBe(200);
    const lead = await readLead(world, sent.json.leads[0]);
    // The card goes; its security code too when the two read together as another card number (a one in ten chance).
    expect(lead.message).toMatch(/^Card \[card number removed\]( 123)? please$/);
    expect(lead.sent.name).toBe(`Layla ${redactedCard}`);
    expect(lead.referral).toMatchObject({ headline: `Call ${redactedCard}`, body: `Pay ${redactedCard}` });
    const person = await world.reader.GET('/api/v1/contacts/{reference}', {
      params: { path: { reference: lead.person as string } },
    });
    expect(person.data?.name).toBe(`Layla ${redactedCard}`);
    // The next message of the conversation: an activity on the same lead, its body without the card.
    const second = whatsAppText(from, wamid(), `and ${written(later, 'persian', '-')}`, new Date());
    const joined = await deliver(world, world.channels.whatsapp.path, second, { 'X-Hub-Signature-256': metaSignature(second) });
    expect(joined.json).toMatchObject({ recorded: 1, leads: sent.json.leads });
    await expectNowhere(world.company.id, [name, text, headline, body, later]);
  });

  it('Property Finder: the enquirer’s name, the message and the listing reference', async () => {
    const [name, message, reference] = [fresh(), fresh(), fresh()];
    const payload = JSON.parse(
      propertyFinderLead(
        `PF${wamid()}`,
        'email',
        { name: `Mira ${written(name, 'ascii', '\u00a0')}`, email: 'mira.pf@example.com' },
        reference,
      ),
    );
    payload.payload.message = `Deposit ${written(message, 'persian', '/')}`;
    payload.payload.listing.reference = `ref ${written(reference, 'ascii', '-')}`;
    const body = JSON.stringify(payload);
    const res = await deliver(world, world.channels.propertyfinder.path, body, {
      'X-Signature': propertyFinderSignature(body, world.channels.propertyfinder.secret),
    });
    expect(res.status, res.text).toBe(200);
    const lead = await readLead(world, res.json.leads[0]);
    expect(lead).toMatchObject({
      message: `Deposit ${redactedCard}`,
      sent: { name: `Mira ${redactedCard}`, listing: `ref ${redactedCard}` },
    });
    await expectNowhere(world.company.id, [name, message, reference]);
  });

  it('a signed sender: two cards in a row in the name, the message, the listing; a detail with a card is dropped', async () => {
    const [first, second, message, listing, detail, key] = [fresh(), fresh(), fresh(), fresh(), fresh(), fresh()];
    const data = {
      name: `${first} ${second}`,
      email: 'signed.cards@example.com',
      message: `number ${written(message, 'fullWidth', '\u2009')} cvv 123`,
      listing: written(listing, 'ascii', '-'),
      details: { note: written(detail, 'persian'), [`ref_${written(key, 'ascii', '_')}`]: 'yes', floor: 'high' },
    };
    const body = JSON.stringify({ type: 'lead.created', data });
    const { path, secret } = world.channels.signed;
    const res = await deliver(world, path, body, standardHeaders(secret, `cards-${wamid()}`, new Date(), body));
    expect(res.status, res.text).toBe(200);
    expect(res.json.dropped).toHaveLength(2);
    const lead = await readLead(world, res.json.leads[0]);
    expect(lead).toMatchObject({
      message: `number ${redactedCard} cvv 123`,
      sent: { name: `${redactedCard} ${redactedCard}`, listing: redactedCard },
      details: { floor: 'high' },
    });
    await expectNowhere(world.company.id, [first, second, message, listing, detail, key]);
  });
});

describe('the browser forms and a server’s enquiry', () => {
  const post = (body: unknown, key: string) =>
    answer(
      testClient(world.api, { host: forms.company.host }).POST('/api/v1/leads', {
        body: body as never,
        headers: { 'X-Api-Key': key, Origin: origin },
      }),
    );

  it('POST /leads: the name and message are kept without the card (browser and server); a card in details is refused', async () => {
    const pk = (
      await createKey(world.api, forms.company.id, { kind: 'publishable', origins: [origin], lead_types: ['enquiry', 'booking'] })
    ).secret;
    const [name, message, page, refused, card] = [fresh(), fresh(), fresh(), fresh(), fresh()];
    const enquiry = {
      consent: true,
      consent_version: '2026-01',
      email: 'form.cards@example.com',
      name: `Omar ${written(name, 'arabicIndic')}`,
      message: `Pay with ${written(message, 'ascii', '.')} 12/29`,
      page: `${origin}/listing/${written(page, 'ascii', '-')}`,
      challenge: developmentToken,
      website: '',
    };
    const res = await post(enquiry, pk);
    expect(res.status, res.text).toBe(201);
    const reader = (await createKey(world.api, forms.company.id, { scopes: ['read:leads', 'write:leads'] })).secret;
    const server = testClient(world.api, { host: forms.company.host, serverKey: reader });
    const lead = (await answer(server.GET('/api/v1/leads/{reference}', { params: { path: { reference: res.json.reference } } })))
      .json;
    expect(lead.message).toMatch(/^Pay with \[card number removed\]( 12)?\/29$/);
    expect(lead.sent.name).toBe(`Omar ${redactedCard}`);
    expect(lead.page).toBe(`${origin}/listing/${redactedCard}`);
    const withDetail = await post({ ...enquiry, details: { note: written(refused, 'fullWidth') } }, pk);
    expect(withDetail.status).toBe(400);
    expect(withDetail.json.errors).toEqual([{ path: 'details.note', code: 'card_number', message: expect.any(String) }]);
    const fromServer = await answer(
      server.POST('/api/v1/leads', {
        body: { consent: true, consent_version: '2026-01', email: 'server.cards@example.com', message: `card ${card}` },
      }),
    );
    expect(fromServer.status, fromServer.text).toBe(201);
    expect(fromServer.json.message).toBe(`card ${redactedCard}`);
    await expectNowhere(forms.company.id, [name, message, page, refused, card]);
  });

  it('POST /bookings: the guest’s name is kept without the card; a card in the message is refused (card_number)', async () => {
    const home = await newHome(forms);
    const [name, message] = [fresh(), fresh()];
    const booked = await postBooking(
      forms,
      bookingBody(home, day(60), day(63), { name: `Guest ${written(name, 'persian', '\u202f')}` }),
    );
    expect(booked.status, booked.text).toBe(201);
    const row = await world.api.db
      .selectFrom('bookings as b')
      .innerJoin('contacts as c', 'c.id', 'b.contact_id')
      .select(['b.sent_name', 'c.name'])
      .where('b.reference', '=', booked.json.reference)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ sent_name: `Guest ${redactedCard}`, name: `Guest ${redactedCard}` });
    const refused = await postBooking(
      forms,
      bookingBody(home, day(70), day(72), { message: `card ${written(message, 'fullWidth')}` }),
    );
    expect(refused.status).toBe(400);
    expect(refused.json.errors).toEqual([{ path: 'message', code: 'card_number', message: expect.any(String) }]);
    await expectNowhere(forms.company.id, [name, message]);
  });
});

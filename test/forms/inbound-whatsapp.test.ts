import { beforeAll, describe, expect, it } from 'vitest';
import { answer } from '../stay/support';
import { testClient } from '../support/client';
import { adminOf } from '../support/world';
import { escalateUnansweredLeads } from '../../functions/crm/escalation';
import {
  adReferral,
  counts,
  deliver,
  eventsOf,
  useInboundWorld,
  metaSignature,
  readLead,
  waId,
  wamid,
  whatsAppStatus,
  whatsAppText,
} from './inbound-support';

/**
 * The WhatsApp receiver, with notifications shaped like Meta's published examples and signed as Meta signs them
 * (X-Hub-Signature-256: sha256 and the hex HMAC-SHA256 of the raw body with the app secret).
 */
const world = useInboundWorld();
let path: string;
const hour = 3_600_000;

beforeAll(async () => {
  path = world.channels.whatsapp.path;
});

/** The company's `inbound_conversation_hours`, set through the typed admin client. */
const conversationHours = (hours: number) =>
  adminOf(world.api).PATCH('/admin/v1/companies/{company_id}', {
    params: { path: { company_id: world.company.id } },
    body: { settings: { inbound_conversation_hours: hours } },
  });
const send = (body: string, signature = metaSignature(body)) => deliver(world, path, body, { 'X-Hub-Signature-256': signature });

describe('the verification request', () => {
  it('answers the challenge as text when the verify token is the channel’s, 403 otherwise', async () => {
    const verify = (token: string) =>
      answer(
        testClient(world.api, { host: world.company.host }).GET('/api/v1/inbound/{token}/whatsapp', {
          params: {
            path: { token: path.split('/')[4] as string },
            query: { 'hub.mode': 'subscribe', 'hub.verify_token': token, 'hub.challenge': '1158201444' },
          },
          parseAs: 'text',
        }),
      );
    const ok = await verify(world.channels.whatsapp.verifyToken as string);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.text).toBe('1158201444');
    const wrong = await verify('not-the-token');
    expect(wrong.status).toBe(403);
    expect(wrong.json.code).toBe('signature_invalid');
  });
});

describe('a text message', () => {
  it('makes one lead: channel and source whatsapp, the sender in E.164 with their profile name, lead.created', async () => {
    const from = waId();
    const id = wamid();
    const res = await send(whatsAppText(from, id, 'Is the 2-bedroom in Marina still available?', new Date()));
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ recorded: 1, repeated: 0, ignored: 0 });
    const lead = await readLead(world, res.json.leads[0]);
    expect(lead).toMatchObject({
      channel: 'whatsapp',
      source: 'whatsapp',
      source_id: id,
      referral: null,
      message: 'Is the 2-bedroom in Marina still available?',
      sent: { name: 'Layla Haddad', phone: `+${from}`, email: null, listing: null },
      consent: null,
      status: 'new',
      first_answered_at: null,
    });
    const person = await world.reader.GET('/api/v1/contacts/{reference}', {
      params: { path: { reference: lead.person as string } },
    });
    expect(person.data).toMatchObject({ name: 'Layla Haddad', phone: `+${from}`, email: null });
    const created = (await eventsOf(world, 'lead.created')).filter((e) => e.data.reference === lead.reference);
    expect(created).toEqual([{ caused_by: 'inbound:whatsapp', data: { reference: lead.reference, person: lead.person } }]);
  });

  it('keeps the click-to-WhatsApp ad’s referral on the lead', async () => {
    const res = await send(whatsAppText(waId(), wamid(), 'Hi, about the ad', new Date(), { referral: adReferral }));
    expect(res.status, res.text).toBe(200);
    const lead = await readLead(world, res.json.leads[0]);
    expect(lead.referral).toEqual({
      source_url: adReferral.source_url,
      source_id: adReferral.source_id,
      source_type: 'ad',
      headline: 'Chat with us',
      body: adReferral.body,
      ctwa_clid: adReferral.ctwa_clid,
    });
  });

  it('stores no card number: the message is kept with each one replaced', async () => {
    const res = await send(whatsAppText(waId(), wamid(), 'My card is 4111 1111 1111 1111, exp 12/29, book it', new Date()));
    expect(res.status, res.text).toBe(200);
    const lead = await readLead(world, res.json.leads[0]);
    expect(lead.message).toBe('My card is [card number removed], exp 12/29, book it');
    const stored = await world.api.db
      .selectFrom('leads')
      .select('message')
      .where('reference', '=', lead.reference)
      .executeTakeFirstOrThrow();
    expect(stored.message).not.toMatch(/4111/);
  });

  it('starts the first-answer clock as a website enquiry does: escalated unanswered, answered by a call', async () => {
    const res = await send(whatsAppText(waId(), wamid(), 'Call me please', new Date()));
    const reference = res.json.leads[0] as string;
    const later = new Date(Date.now() + 31 * 60_000);
    expect(await escalateUnansweredLeads(world.api.db, later)).toContain(reference);
    const call = await world.reader.POST('/api/v1/activities', {
      body: { type: 'call', source: 'pbx', external_id: `call-${reference}`, lead: reference },
    });
    expect(call.response.status).toBe(201);
    expect((await readLead(world, reference)).first_answered_at).not.toBeNull();
  });
});

describe('a conversation', () => {
  it('makes a second message the next hour an activity on the same lead, and one after the window a new lead', async () => {
    const from = waId();
    const first = new Date(Date.now() - 30 * hour);
    const opened = await send(whatsAppText(from, wamid(), 'Hello', first));
    const reference = opened.json.leads[0] as string;
    const before = await counts(world);
    const nextId = wamid();
    const next = await send(whatsAppText(from, nextId, 'Can I view it tomorrow at 10?', new Date(first.getTime() + hour)));
    expect(next.status, next.text).toBe(200);
    expect(next.json).toMatchObject({ recorded: 1, leads: [reference] });
    const after = await counts(world);
    expect(after).toMatchObject({ leads: before.leads, contacts: before.contacts, activities: before.activities + 1 });
    const { data } = await world.reader.GET('/api/v1/activities', { params: { query: { external: `whatsapp:${nextId}` } } });
    expect(data?.results).toEqual([
      expect.objectContaining({
        type: 'message',
        lead: reference,
        body: 'Can I view it tomorrow at 10?',
        source: 'whatsapp',
        external_id: nextId,
      }),
    ]);
    const activityEvents = (await eventsOf(world, 'activity.created')).filter((e) => e.data.lead === reference);
    expect(activityEvents).toHaveLength(1);
    expect(activityEvents[0]?.caused_by).toBe('inbound:whatsapp');
    // 25 hours after the last message: the window (24 hours by default) has closed, so a new lead.
    const late = await send(whatsAppText(from, wamid(), 'Still interested', new Date(first.getTime() + 26 * hour)));
    expect(late.json.leads[0]).not.toBe(reference);
  });

  it('takes the window from the company’s inbound_conversation_hours', async () => {
    const set = await conversationHours(2);
    expect(set.response.status, JSON.stringify(set.error)).toBe(200);
    const from = waId();
    const first = new Date(Date.now() - 10 * hour);
    const opened = await send(whatsAppText(from, wamid(), 'Hello', first));
    const within = await send(whatsAppText(from, wamid(), 'Within two hours', new Date(first.getTime() + 1.5 * hour)));
    expect(within.json.leads).toEqual(opened.json.leads);
    const after = await send(whatsAppText(from, wamid(), 'Three hours after the last', new Date(first.getTime() + 4.5 * hour)));
    expect(after.json.leads).not.toEqual(opened.json.leads);
    await conversationHours(24);
  });

  it('makes a message to a closed lead a new lead, whatever the window', async () => {
    const from = waId();
    const opened = await send(whatsAppText(from, wamid(), 'Hello', new Date(Date.now() - hour)));
    const reference = opened.json.leads[0] as string;
    await world.api.db.updateTable('leads').set({ status: 'lost' }).where('reference', '=', reference).execute();
    const again = await send(whatsAppText(from, wamid(), 'Hello again', new Date()));
    expect(again.json.leads[0]).not.toBe(reference);
  });
});

describe('nothing twice, nothing for statuses', () => {
  it('acknowledges a status notification and stores nothing', async () => {
    const before = await counts(world);
    const res = await send(whatsAppStatus(waId(), wamid(), new Date()));
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ recorded: 0, repeated: 0, ignored: 1, leads: [], failed: 0 });
    expect(await counts(world)).toEqual(before);
  });

  it('records the same delivery sent 20 times at once as one lead', async () => {
    const body = whatsAppText(waId(), wamid(), 'Twenty times', new Date());
    const before = await counts(world);
    const answers = await Promise.all(Array.from({ length: 20 }, () => send(body)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(answers.filter((a) => a.json.recorded === 1)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.json.leads[0])).size).toBe(1);
    const after = await counts(world);
    expect(after).toMatchObject({ leads: before.leads + 1, contacts: before.contacts + 1, messages: before.messages + 1 });
    expect(after.events).toBe(before.events + 2); // lead.created and contact.created, once each
  });
});

describe('refused deliveries change nothing', () => {
  const body = () => whatsAppText(waId(), wamid(), 'Forged?', new Date());
  it.each([
    ['a bad signature', (b: string) => send(b, metaSignature(b, 'another-app-secret'))],
    ['a body altered after signing', (b: string) => send(b.replace('Forged?', 'Altered'), metaSignature(b))],
    ['no signature', (b: string) => deliver(world, path, b, {})],
    ['a signature that is not hex', (b: string) => send(b, 'sha256=zz')],
  ])('%s: 403 signature_invalid', async (_, sendIt) => {
    const before = await counts(world);
    const res = await sendIt(body());
    expect(res.status, res.text).toBe(403);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.json.code).toBe('signature_invalid');
    expect(await counts(world)).toEqual(before);
  });

  it('a signed body that is not JSON or not Meta’s shape: 400, nothing', async () => {
    const before = await counts(world);
    expect((await send('not json')).json.code).toBe('invalid_json');
    expect((await send('{"object":1}')).status).toBe(400);
    expect(await counts(world)).toEqual(before);
  });
});

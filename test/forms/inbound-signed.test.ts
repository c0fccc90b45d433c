import { beforeAll, describe, expect, it } from 'vitest';
import { counts, deliver, eventsOf, useInboundWorld, readLead, standardHeaders } from './inbound-support';

/**
 * The generic receiver: a `lead.created` message signed with Standard Webhooks by the standardwebhooks library (the
 * one this API signs its own webhooks with), as a Bayut/dubizzle export, a call tracker or an automation tool sends it.
 */
const world = useInboundWorld();
let path: string;
let secret: string;

beforeAll(async () => {
  ({ path, secret } = world.channels.signed);
});

let serial = 0;
const messageId = () => `msg_${Date.now().toString(36)}${serial++}`;
const leadBody = (data: Record<string, unknown>) =>
  JSON.stringify({ type: 'lead.created', timestamp: new Date().toISOString(), data });
const send = (body: string, id = messageId(), at = new Date(), headers?: Record<string, string>) =>
  deliver(world, path, body, headers ?? standardHeaders(secret, id, at, body));

describe('a signed lead', () => {
  it('makes a lead with the sender’s channel and the channel’s source; caused by inbound:<source>', async () => {
    const res = await send(
      leadBody({
        channel: 'call',
        name: 'Huda Karim',
        phone: '+971 52 888 1234',
        message: 'Called about the villa',
        listing: 'palm-5br-villa-private-beach-holiday',
      }),
    );
    expect(res.status, res.text).toBe(200);
    const lead = await readLead(world, res.json.leads[0]);
    expect(lead).toMatchObject({
      channel: 'call',
      source: 'bayut',
      listing: 'palm-5br-villa-private-beach-holiday',
      message: 'Called about the villa',
      sent: { name: 'Huda Karim', phone: '+971 52 888 1234' },
    });
    const created = (await eventsOf(world, 'lead.created')).find((e) => e.data.reference === lead.reference);
    expect(created?.caused_by).toBe('inbound:bayut');
  });

  it('drops details a form would be refused for, names them, and removes card numbers from texts', async () => {
    const res = await send(
      leadBody({
        email: `d.${messageId()}@example.com`,
        message: 'Deposit from card 5555555555554444 please',
        details: { budget: 2_000_000, passport_number: 'N1234567', bedrooms: 3 },
      }),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json.dropped).toEqual(['details.passport_number']);
    const lead = await readLead(world, res.json.leads[0]);
    expect(lead.details).toEqual({ budget: 2_000_000, bedrooms: 3 });
    expect(lead.message).toBe('Deposit from card [card number removed] please');
  });

  it('records a retried message (the same webhook-id) once', async () => {
    const body = leadBody({ email: `r.${messageId()}@example.com` });
    const id = messageId();
    const first = await send(body, id);
    const before = await counts(world);
    const again = await send(body, id);
    expect(again.json).toMatchObject({ recorded: 0, repeated: 1, leads: first.json.leads });
    expect(await counts(world)).toEqual(before);
  });

  it('refuses a lead without email or phone with 400 at its field, storing nothing', async () => {
    const before = await counts(world);
    const res = await send(leadBody({ name: 'Nobody' }));
    expect(res.status).toBe(400);
    expect(res.json.errors).toEqual([expect.objectContaining({ path: 'data.email' })]);
    expect(await counts(world)).toEqual(before);
  });

  it('acknowledges other types', async () => {
    const res = await send(JSON.stringify({ type: 'lead.updated', data: {} }));
    expect(res.json).toEqual({ recorded: 0, repeated: 0, ignored: 1, leads: [], failed: 0 });
  });
});

describe('refused messages change nothing', () => {
  const body = () => leadBody({ email: `x.${messageId()}@example.com` });
  it.each([
    ['a stale timestamp (10 minutes old: a replay)', (b: string) => send(b, messageId(), new Date(Date.now() - 600_000))],
    ['a timestamp 10 minutes ahead', (b: string) => send(b, messageId(), new Date(Date.now() + 600_000))],
    [
      'another secret',
      (b: string) => send(b, 'm1', new Date(), standardHeaders('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'm1', new Date(), b)),
    ],
    [
      'a body altered after signing',
      (b: string) => send(b.replace('x.', 'y.'), 'm2', new Date(), standardHeaders(secret, 'm2', new Date(), b)),
    ],
    [
      'an id altered after signing',
      (b: string) => send(b, 'm3', new Date(), { ...standardHeaders(secret, 'm4', new Date(), b), 'webhook-id': 'm3' }),
    ],
    ['no signature', (b: string) => deliver(world, path, b, {})],
  ])('%s: 403 signature_invalid', async (_, sendIt) => {
    const before = await counts(world);
    const res = await sendIt(body());
    expect(res.status, res.text).toBe(403);
    expect(res.json.code).toBe('signature_invalid');
    expect(await counts(world)).toEqual(before);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import {
  counts,
  deliver,
  eventsOf,
  useInboundWorld,
  propertyFinderLead,
  propertyFinderSignature,
  readLead,
} from './inbound-support';

/**
 * The Property Finder receiver, with lead events in the envelope of Property Finder's Enterprise API webhooks, signed
 * as it documents (X-Signature: the hex HMAC-SHA256 of the payload with the subscription's secret).
 */
const world = useInboundWorld();
let path: string;
let secret: string;

beforeAll(async () => {
  ({ path, secret } = world.channels.propertyfinder);
});

const send = (body: string, signature = propertyFinderSignature(body, secret)) =>
  deliver(world, path, body, { 'X-Signature': signature });
let serial = 0;
const leadId = () => `01K${Date.now().toString(36).toUpperCase()}PF${serial++}`;

describe('a lead event', () => {
  it('makes a call lead with its listing found by its reference (the slug the feed gives) and the enquirer', async () => {
    const body = propertyFinderLead(
      leadId(),
      'call',
      { name: 'Omar Said', phone: '+971 50 765 4321' },
      'marina-gate-2br-sea-view',
    );
    const res = await send(body);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ recorded: 1, repeated: 0 });
    const lead = await readLead(world, res.json.leads[0]);
    expect(lead).toMatchObject({
      channel: 'call',
      source: 'propertyfinder',
      listing: 'marina-gate-2br-sea-view',
      sent: { name: 'Omar Said', phone: '+971 50 765 4321', email: null, listing: 'marina-gate-2br-sea-view' },
      details: { response_link: 'https://expert.propertyfinder.ae/leads/respond/abc' },
    });
    const created = (await eventsOf(world, 'lead.created')).find((e) => e.data.reference === lead.reference);
    expect(created?.caused_by).toBe('inbound:propertyfinder');
  });

  it('finds the listing by the reference the portal feeds publish (the listing id’s 32 hex digits)', async () => {
    const listing = await world.api.db
      .selectFrom('listings')
      .select(['id', 'slug_en'])
      .where('company_id', '=', world.company.id)
      .where('slug_en', '=', 'marina-gate-2br-sea-view')
      .executeTakeFirstOrThrow();
    const published = listing.id.replaceAll('-', '').toUpperCase();
    const res = await send(propertyFinderLead(leadId(), 'email', { name: 'Huda', email: 'huda.pf@example.com' }, published));
    expect(res.status, res.text).toBe(200);
    const lead = await readLead(world, res.json.leads[0]);
    expect(lead).toMatchObject({ listing: 'marina-gate-2br-sea-view', sent: { listing: published } });
  });

  it('makes a WhatsApp lead, and keeps a reference the company does not know as text (listing null)', async () => {
    const body = propertyFinderLead(leadId(), 'whatsapp', { name: 'Sara', email: 'sara.pf@example.com' }, 'PF-REF-7781');
    const res = await send(body);
    const lead = await readLead(world, res.json.leads[0]);
    expect(lead).toMatchObject({
      channel: 'whatsapp',
      listing: null,
      sent: { listing: 'PF-REF-7781', email: 'sara.pf@example.com' },
    });
  });

  it('records a lead once: a retry and the lead’s later lead.assigned are repeats', async () => {
    const id = leadId();
    const body = propertyFinderLead(id, 'email', { name: 'Ali', email: `ali.${id.toLowerCase()}@example.com` }, 'x');
    const first = await send(body);
    const before = await counts(world);
    const again = await send(body);
    const assigned = await send(propertyFinderLead(id, 'email', { name: 'Ali' }, 'x', 'lead.assigned'));
    expect([again.json.repeated, assigned.json.repeated]).toEqual([1, 1]);
    expect(assigned.json.leads).toEqual(first.json.leads);
    expect(await counts(world)).toEqual(before);
  });

  it('acknowledges other events and stores nothing', async () => {
    const before = await counts(world);
    const body = JSON.stringify({
      id: '554f3eaf-814a-4068-80b8-7beaaedb7194',
      type: 'listing.published',
      timestamp: '2025-08-24T14:15:22Z',
      entity: { id: '01K0YB4HEKM08V901DVJ5ATVYF', type: 'listing' },
      payload: {},
    });
    const res = await send(body);
    expect(res.json).toEqual({ recorded: 0, repeated: 0, ignored: 1, leads: [], failed: 0 });
    expect(await counts(world)).toEqual(before);
  });
});

describe('refused deliveries change nothing', () => {
  it.each([
    ['a bad signature', (b: string) => send(b, propertyFinderSignature(b, 'another-secret'))],
    ['a body altered after signing', (b: string) => send(b.replace('Nadia', 'Nadim'), propertyFinderSignature(b, secret))],
    ['no signature', (b: string) => deliver(world, path, b, {})],
  ])('%s: 403', async (_, sendIt) => {
    const before = await counts(world);
    const res = await sendIt(propertyFinderLead(leadId(), 'call', { name: 'Nadia', phone: '+971501112233' }, 'x'));
    expect(res.status, res.text).toBe(403);
    expect(res.json.code).toBe('signature_invalid');
    expect(await counts(world)).toEqual(before);
  });

  it('another channel’s token at this kind’s address: 404 (a token serves its own kind only)', async () => {
    const body = propertyFinderLead(leadId(), 'call', { name: 'Nadia', phone: '+971501112233' }, 'x');
    const res = await deliver(world, world.channels.whatsapp.path.replace('/whatsapp', '/propertyfinder'), body, {
      'X-Signature': propertyFinderSignature(body, secret),
    });
    expect(res.status).toBe(404);
  });
});

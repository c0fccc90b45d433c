import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect } from 'vitest';
import { createPropertyApiClient } from '../../clients/typescript/src/index';
import type { DatabaseHandle } from '../../lib/db/index';
import { createTestApi, type TestApi } from '../support/harness';
import { answer } from '../stay/support';
import type { AdminBody } from '../support/client';
import { adminOf, createKey, demoCompany } from '../support/world';

/**
 * What the inbound receivers' tests share: a company with the demo catalogue and a channel of each kind made through
 * the admin API, payloads written from each source's published examples (not from our output), signed in the test
 * with the documented algorithms (node:crypto's HMAC for Meta and Property Finder, the standardwebhooks library for
 * the generic receiver), and reads through the typed client.
 */
export type Channel = { id: string; url: string; path: string; secret: string; verifyToken: string | null };
export type InboundWorld = {
  api: TestApi;
  company: { id: string; host: string };
  channels: { whatsapp: Channel; propertyfinder: Channel; signed: Channel };
  reader: ReturnType<typeof createPropertyApiClient>;
  serverKey: string;
};

export const metaAppSecret = 'f3c9e1a27b5d4c08a9e6b2d1c0f7a8e4';

export async function inboundWorld(
  settings: Record<string, unknown> = {},
  env: Record<string, string> = {},
  handle?: DatabaseHandle,
): Promise<InboundWorld> {
  const api = await createTestApi({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000', ...env }, handle });
  const company = await demoCompany(api, { lead_answer_minutes: 30, ...settings });
  const make = async (body: Record<string, unknown>): Promise<Channel> => {
    const res = await inboundChannels(api, company.id).create(body);
    expect(res.status, res.text).toBe(201);
    return {
      id: res.json.id,
      url: res.json.url,
      path: new URL(res.json.url).pathname,
      secret: res.json.secret ?? (body.secret as string),
      verifyToken: res.json.verify_token,
    };
  };
  const channels = {
    whatsapp: await make({ kind: 'whatsapp', secret: metaAppSecret }),
    propertyfinder: await make({ kind: 'propertyfinder' }),
    signed: await make({ kind: 'signed', source: 'bayut' }),
  };
  const serverKey = (
    await createKey(api, company.id, { scopes: ['read:leads', 'read:contacts', 'read:followups', 'write:followups'] })
  ).secret;
  const reader = createPropertyApiClient({
    baseUrl: `http://${company.host}`,
    serverKey,
    fetch: (request: Request) => Promise.resolve(api.app.fetch(request)),
  });
  return { api, company, channels, reader, serverKey };
}

/** The inbound world of a test file, made before its tests and closed after them: `const world = useInboundWorld();`. */
export function useInboundWorld(...args: Parameters<typeof inboundWorld>): InboundWorld {
  const world = {} as InboundWorld;
  beforeAll(async () => {
    Object.assign(world, await inboundWorld(...args));
  });
  afterAll(() => world.api?.close());
  return world;
}

/** The admin API's inbound channels of a company through its typed client, each answered as {@link answer} reads it. */
export function inboundChannels(api: TestApi, companyId: string) {
  const admin = adminOf(api);
  const company = { params: { path: { company_id: companyId } } };
  const one = (id: string) => ({ params: { path: { company_id: companyId, channel_id: id } } });
  return {
    list: () => answer(admin.GET('/admin/v1/companies/{company_id}/inbound-channels', company)),
    /** A new channel (any body: a test may send what the schema refuses). */
    create: (body: Record<string, unknown>) =>
      answer(
        admin.POST('/admin/v1/companies/{company_id}/inbound-channels', {
          ...company,
          body: body as AdminBody<'createCompanyInboundChannel'>,
        }),
      ),
    patch: (id: string, body: Record<string, unknown>) =>
      answer(
        admin.PATCH('/admin/v1/companies/{company_id}/inbound-channels/{channel_id}', {
          ...one(id),
          body: body as AdminBody<'updateCompanyInboundChannel'>,
        }),
      ),
    rotateToken: (id: string) =>
      answer(admin.POST('/admin/v1/companies/{company_id}/inbound-channels/{channel_id}/rotate-token', one(id))),
  };
}

/** Posts a raw body to a receiver with the given headers (the body as signed, byte for byte). */
export function deliver(
  world: Pick<InboundWorld, 'api' | 'company'>,
  path: string,
  body: string,
  headers: Record<string, string>,
) {
  // raw: the body is sent as signed, byte for byte (the typed client would serialise it again)
  return world.api.request(path, {
    host: world.company.host,
    method: 'POST',
    body,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

/** Meta's signature: `sha256=` and the hex HMAC-SHA256 of the raw body with the app secret. */
export const metaSignature = (body: string, secret = metaAppSecret) =>
  `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;

/** Property Finder's `X-Signature`: the hex HMAC-SHA256 of the payload with the subscription's secret. */
export const propertyFinderSignature = (body: string, secret: string) =>
  createHmac('sha256', secret).update(body, 'utf8').digest('hex');

/** Standard Webhooks headers for `body`, by the standardwebhooks library (the scheme's reference implementation). */
export function standardHeaders(secret: string, id: string, at: Date, body: string) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}

let serial = 0;
/** A UAE mobile number of this run (WhatsApp's `wa_id`: country code and number, no `+`). */
/** A sender's number no other call in this process gives: a conversation joined by chance fails a count (CI, 2026-11-29). */
export const waId = () => `97155${String(3_000_000 + serial++).padStart(7, '0')}`;
export const wamid = () => `wamid.HBgMOTcxNTU${Date.now().toString(36)}${serial++}AgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=`;

/**
 * A text message notification as Meta's `messages` webhook reference shows it (text message; with `referral` when sent
 * from a click-to-WhatsApp ad).
 */
export function whatsAppText(from: string, id: string, body: string, at: Date, extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '97145550100', phone_number_id: '106540352242922' },
              contacts: [{ profile: { name: 'Layla Haddad' }, wa_id: from }],
              messages: [
                { from, id, timestamp: String(Math.floor(at.getTime() / 1000)), type: 'text', text: { body }, ...extra },
              ],
            },
            field: 'messages',
          },
        ],
      },
    ],
  });
}

/** A click-to-WhatsApp ad's referral, as the reference documents its fields. */
export const adReferral = {
  source_url: 'https://fb.me/3cr4Wqqkv',
  source_id: '120226305854810726',
  source_type: 'ad',
  body: 'Sea-view flats in Dubai Marina, ready to move in.',
  headline: 'Chat with us',
  media_type: 'image',
  image_url: 'https://scontent.xx.fbcdn.net/v/t45.1600-4/ad.jpg',
  ctwa_clid:
    'Aff-n8ZTODiE79d22KtAwQKj9e_mIEOOj27vDVwFjN80dp4_0NiNhEgpGo0AHemvuSoifXaytfTzcchptiErTKCqTrJ5nW1h7IHYeYymGb5K5J5iTROpBhWAGaIAeUzHL50',
  welcome_message: { text: 'Hi there! Let us know how we can help!' },
};

/** A message status notification (sent, delivered, read), as the `statuses` reference shows it. */
export function whatsAppStatus(recipient: string, id: string, at: Date) {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '97145550100', phone_number_id: '106540352242922' },
              statuses: [
                {
                  id,
                  status: 'delivered',
                  timestamp: String(Math.floor(at.getTime() / 1000)),
                  recipient_id: recipient,
                  conversation: { id: 'a75d17ad06104c51166f948319b03c6a', origin: { type: 'service' } },
                  pricing: { billable: true, pricing_model: 'CBP', category: 'service' },
                },
              ],
            },
            field: 'messages',
          },
        ],
      },
    ],
  });
}

/** A Property Finder `lead.created` event, in the envelope its Enterprise API's Webhooks section documents. */
export function propertyFinderLead(
  leadId: string,
  channel: 'call' | 'whatsapp' | 'email',
  sender: { name: string; phone?: string; email?: string },
  listingReference: string,
  type = 'lead.created',
) {
  const contacts = [
    ...(sender.phone ? [{ type: 'phone', value: sender.phone }] : []),
    ...(sender.email ? [{ type: 'email', value: sender.email }] : []),
  ];
  return JSON.stringify({
    id: `${type}-${leadId}`,
    type,
    timestamp: '2026-11-20T14:15:22Z',
    entity: { id: leadId, type: 'lead' },
    payload: {
      channel,
      status: 'sent',
      entityType: 'listing',
      publicProfile: { id: 10231 },
      listing: { id: '01K0YB4HEKM08V901DVJ5ATVYF', reference: listingReference },
      responseLink: 'https://expert.propertyfinder.ae/leads/respond/abc',
      sender: { name: sender.name, contacts },
    },
  });
}

/** The company's rows of a table, counted: what a refused delivery must leave unchanged. */
export async function counts(world: InboundWorld) {
  const count = async (table: 'leads' | 'contacts' | 'activities' | 'events' | 'inbound_messages') =>
    Number(
      (
        await world.api.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('company_id', '=', world.company.id)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    leads: await count('leads'),
    contacts: await count('contacts'),
    activities: await count('activities'),
    events: await count('events'),
    messages: await count('inbound_messages'),
  };
}

/** The lead as the API shows it, through the typed client. */
export async function readLead(world: InboundWorld, reference: string) {
  const { data, error } = await world.reader.GET('/api/v1/leads/{reference}', { params: { path: { reference } } });
  expect(error).toBeUndefined();
  return data as NonNullable<typeof data>;
}

/** Events of the company of a type, oldest first. */
export const eventsOf = (world: InboundWorld, type: string) =>
  world.api.db
    .selectFrom('events')
    .select(['caused_by', 'data'])
    .where('company_id', '=', world.company.id)
    .where('type', '=', type)
    .orderBy(sql`created_at`)
    .execute();

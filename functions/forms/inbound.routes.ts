import { z } from '@hono/zod-openapi';
import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import type { Handler } from '../../lib/routes';
import { json } from '../../schema/common/api';
import type { InboundKind } from '../../schema/forms/db';
import { InboundReceipt, PropertyFinderEvent, SignedLeadEvent, WhatsAppNotification } from '../../schema/forms/inbound';
import { confirmWhatsAppSubscription, receiveInbound } from './inbound';

/**
 * The inbound receivers (docs/api-reference.md, "Inbound channels"): a company points WhatsApp (Meta's Cloud API
 * webhooks), Property Finder's lead webhooks and any Standard Webhooks sender at these addresses. The body is
 * declared by reference only, so nothing parses it before its signature is verified (functions/forms/inbound.ts).
 */
const tokenParam = z.object({
  token: z.string().min(1).max(200).openapi({ description: "The channel's secret token (admin API: inbound channels)." }),
});

const answered = {
  200: json(InboundReceipt, 'Verified and recorded before this answer: every enquiry of the delivery is committed.'),
};

/** A signed body, documented by its source's shape (a component) and read by the receiver after verification. */
const signedBody = (component: string, description: string) => ({
  required: true,
  description,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${component}` } } },
});

const receiver = (
  kind: InboundKind,
  operationId: string,
  summary: string,
  description: string,
  component: string,
  header: string,
) =>
  defineRoute({
    method: 'post',
    path: `/inbound/{token}/${kind}`,
    operationId,
    tags: ['Inbound'],
    summary,
    description,
    access: { kind: 'inbound' },
    request: {
      params: tokenParam,
      headers: z.object({ [header]: z.string().optional().openapi({ description: 'The source’s signature.' }) }),
      body: signedBody(component, `The source's payload, exactly as signed (${header}).`),
    },
    responses: answered,
  });

const whatsAppRoute = receiver(
  'whatsapp',
  'receiveWhatsAppMessages',
  'Receive WhatsApp messages (Meta Cloud API webhooks)',
  "Meta's webhook notifications for the company's WhatsApp Business number, signed with `X-Hub-Signature-256` (HMAC-SHA256 of the raw body with the app secret). Each message makes a lead (its sender's number in E.164, their profile name, a click-to-WhatsApp ad's `referral`); a message within the company's conversation window (`inbound_conversation_hours`, default 24) of the last message of the sender's open lead becomes a `message` activity on it. Statuses and other notifications are acknowledged and ignored. A message id already recorded is a repeat.",
  'WhatsAppNotification',
  'x-hub-signature-256',
);

const propertyFinderRoute = receiver(
  'propertyfinder',
  'receivePropertyFinderLeads',
  'Receive Property Finder leads (lead webhooks)',
  "Property Finder's lead events (`lead.created`; `lead.assigned` and `lead.updated`, which carry project leads), signed with `X-Signature` (hex HMAC-SHA256 of the body with the subscription's secret): one lead per Property Finder lead, with its channel (`email`, `call`, `whatsapp`), the enquirer and the listing's reference. Other events are acknowledged and ignored.",
  'PropertyFinderEvent',
  'x-signature',
);

const signedRoute = receiver(
  'signed',
  'receiveSignedLeads',
  'Receive leads from any Standard Webhooks sender',
  'A `lead.created` message signed with Standard Webhooks (`webhook-id`, `webhook-timestamp` within 5 minutes, `webhook-signature` with the channel’s `whsec_` secret): Bayut/dubizzle lead exports, a call-tracking service, an automation tool. `data` is a `SignedLeadData`. The `webhook-id` makes a retry a repeat. Details a form would refuse are dropped and named in `dropped`; card numbers in texts are removed.',
  'SignedLeadEvent',
  'webhook-signature',
);

const handshakeRoute = defineRoute({
  method: 'get',
  path: '/inbound/{token}/whatsapp',
  operationId: 'confirmWhatsAppSubscription',
  tags: ['Inbound'],
  summary: "Answer Meta's verification request for the WhatsApp receiver",
  description:
    'Meta sends `hub.mode=subscribe`, the verify token given to it (`hub.verify_token`) and `hub.challenge` when the callback URL is set: the challenge is answered as plain text when the verify token is the channel’s.',
  access: { kind: 'inbound' },
  request: {
    params: tokenParam,
    query: z.object({
      'hub.mode': z.string().max(40).optional(),
      'hub.verify_token': z.string().max(200).optional(),
      'hub.challenge': z.string().max(200).optional(),
    }),
  },
  responses: { 200: { description: 'The challenge', content: { 'text/plain': { schema: z.string() } } } },
});

/** A receiver: its token from the path, the raw body and headers to the channel's verification. */
async function receive(c: Parameters<Handler<typeof whatsAppRoute>>[0], kind: InboundKind) {
  const { token } = c.req.valid('param');
  const body = new Uint8Array(await c.req.arrayBuffer());
  return c.json(await receiveInbound(c.var.services, c.var.company, kind, token, { body, headers: c.req.raw.headers }), 200);
}

const receiveWhatsApp: Handler<typeof whatsAppRoute> = function receiveWhatsApp(c) {
  return receive(c, 'whatsapp');
};
const receivePropertyFinder: Handler<typeof propertyFinderRoute> = function receivePropertyFinder(c) {
  return receive(c, 'propertyfinder');
};
const receiveSigned: Handler<typeof signedRoute> = function receiveSigned(c) {
  return receive(c, 'signed');
};

const confirmWhatsApp: Handler<typeof handshakeRoute> = async function confirmWhatsApp(c) {
  const { token } = c.req.valid('param');
  const query = c.req.valid('query');
  const challenge = await confirmWhatsAppSubscription(c.var.services, c.var.company, token, {
    mode: query['hub.mode'],
    verifyToken: query['hub.verify_token'],
    challenge: query['hub.challenge'],
  });
  return c.text(challenge, 200);
};

export const inboundReceivers = createRouter()
  .openapi(handshakeRoute, confirmWhatsApp)
  .openapi(whatsAppRoute, receiveWhatsApp)
  .openapi(propertyFinderRoute, receivePropertyFinder)
  .openapi(signedRoute, receiveSigned);

// The payloads the receivers document by reference (no route body parses them: see above).
inboundReceivers.openAPIRegistry.register('WhatsAppNotification', WhatsAppNotification);
inboundReceivers.openAPIRegistry.register('PropertyFinderEvent', PropertyFinderEvent);
inboundReceivers.openAPIRegistry.register('SignedLeadEvent', SignedLeadEvent);

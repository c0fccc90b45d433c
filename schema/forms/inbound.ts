import { z } from '@hono/zod-openapi';
import { instant } from '../common/api';
import { text } from '../common/text';
import { LeadDetailsInput, leadFormFields } from '../common/forms';
import { leadChannels } from '../common/lead-shape';
import { inboundKinds } from './db';

/**
 * The receivers' payloads, as the sources publish them (docs/api-reference.md, "Inbound channels", cites each), and
 * the admin API's channels. The payload schemas are lenient (unknown fields pass, most fields optional): a source adds
 * fields without notice, and a delivery refused for an unknown field would be retried for days. They are read only
 * after the raw body's signature was verified.
 */
const received = z.string().max(4096);

/** Meta's `referral` of a message sent from a click-to-WhatsApp ad. */
const WhatsAppReferral = z
  .looseObject({
    source_url: received.optional(),
    source_id: received.optional(),
    source_type: received.optional(),
    headline: received.optional(),
    body: received.optional(),
    ctwa_clid: received.optional(),
  })
  .openapi('WhatsAppReferral');

export const WhatsAppMessage = z
  .looseObject({
    from: z.string().max(32),
    id: z.string().min(1).max(200),
    timestamp: z.string().regex(/^\d{1,12}$/),
    type: z.string().max(40),
    text: z.looseObject({ body: received }).optional(),
    button: z.looseObject({ text: received.optional() }).optional(),
    interactive: z
      .looseObject({
        button_reply: z.looseObject({ title: received.optional() }).optional(),
        list_reply: z.looseObject({ title: received.optional() }).optional(),
      })
      .optional(),
    image: z.looseObject({ caption: received.optional() }).optional(),
    video: z.looseObject({ caption: received.optional() }).optional(),
    document: z.looseObject({ caption: received.optional(), filename: received.optional() }).optional(),
    location: z.looseObject({ name: received.optional(), address: received.optional() }).optional(),
    referral: WhatsAppReferral.optional(),
  })
  .openapi('WhatsAppMessage');

export const WhatsAppContact = z.looseObject({
  wa_id: z.string().max(32),
  profile: z.looseObject({ name: received.optional() }).optional(),
});

/** Meta's notification with its messages and contacts read by the given schemas (each of them on its own). */
const whatsAppEnvelope = <M extends z.ZodType, C extends z.ZodType>(message: M, contact: C) =>
  z.looseObject({
    object: z.string().max(100),
    entry: z
      .array(
        z.looseObject({
          id: z.string().max(100).optional(),
          changes: z
            .array(
              z.looseObject({
                field: z.string().max(100),
                value: z
                  .looseObject({
                    messaging_product: z.string().max(40).optional(),
                    metadata: z.looseObject({ phone_number_id: z.string().max(100).optional() }).optional(),
                    contacts: z.array(contact).max(100).optional(),
                    messages: z.array(message).max(100).optional(),
                    statuses: z.array(z.looseObject({})).max(1000).optional(),
                  })
                  .optional(),
              }),
            )
            .max(100),
        }),
      )
      .max(100),
  });

export const WhatsAppNotification = whatsAppEnvelope(WhatsAppMessage, WhatsAppContact).openapi('WhatsAppNotification', {
  description:
    'Meta’s WhatsApp Cloud API webhook (`object` `whatsapp_business_account`): `entry[].changes[].value` with `contacts`, `messages` (each may carry the click-to-WhatsApp `referral`) or `statuses`. Signed with `X-Hub-Signature-256`.',
});

/**
 * The notification as the receiver reads it: the envelope first, then each message and contact on its own
 * ({@link WhatsAppMessage}, {@link WhatsAppContact}), so one that is not in Meta's shape fails alone and the
 * others are kept (docs/api-reference.md, "Inbound channels": a delivery is never refused for one bad item).
 */
export const WhatsAppDelivery = whatsAppEnvelope(z.unknown(), z.unknown());

export type WhatsAppDeliveryValue = z.infer<typeof WhatsAppDelivery>;
export type WhatsAppContactValue = z.infer<typeof WhatsAppContact>;
export type WhatsAppNotificationValue = z.infer<typeof WhatsAppNotification>;
export type WhatsAppMessageValue = z.infer<typeof WhatsAppMessage>;

const PropertyFinderContact = z.looseObject({ type: z.string().max(40), value: received });

export const PropertyFinderEvent = z
  .looseObject({
    id: z.string().min(1).max(200),
    type: z.string().max(100),
    timestamp: z.string().max(40).optional(),
    entity: z.looseObject({ id: z.string().min(1).max(200), type: z.string().max(40).optional() }),
    payload: z
      .looseObject({
        channel: z.string().max(40).optional(),
        status: z.string().max(40).optional(),
        entityType: z.string().max(40).optional(),
        listing: z.looseObject({ id: z.string().max(200).optional(), reference: z.string().max(200).optional() }).optional(),
        responseLink: received.optional(),
        message: received.optional(),
        sender: z
          .looseObject({ name: received.optional(), contacts: z.array(PropertyFinderContact).max(20).optional() })
          .optional(),
      })
      .optional(),
  })
  .openapi('PropertyFinderEvent', {
    description:
      'A Property Finder Enterprise API webhook event: `id`, `type` (`lead.created`, `lead.assigned`, `lead.updated` make a lead; others are acknowledged), `timestamp`, `entity` (the lead) and `payload` (`channel`, `listing`, `sender`). Signed with `X-Signature` when the subscription has a secret.',
  });

export type PropertyFinderEventValue = z.infer<typeof PropertyFinderEvent>;

/** The generic receiver's lead: the form's fields, plus how the enquirer reached the sender. */
export const SignedLeadData = z
  .looseObject({
    channel: z.enum(leadChannels).default('other'),
    name: leadFormFields.name,
    email: leadFormFields.email,
    phone: leadFormFields.phone,
    message: leadFormFields.message,
    language: leadFormFields.language,
    listing: z.string().trim().min(1).max(200).optional().openapi({
      description: 'A listing slug (any language) or id; kept as sent when the company has no such listing.',
    }),
    service: leadFormFields.service,
    details: LeadDetailsInput.optional(),
    occurred_at: instant.optional().openapi({ description: 'When the enquiry was made; default: when it is received.' }),
  })
  .openapi('SignedLeadData');

/** A signed message as read first (its `data` is read as a SignedLeadData afterwards, to name each field's problem). */
export const SignedLeadEnvelope = z.looseObject({
  type: z.string().max(100),
  timestamp: z.string().max(40).optional(),
  data: z.unknown(),
});

export const SignedLeadEvent = z
  .looseObject({
    type: z.string().max(100).openapi({ example: 'lead.created' }),
    timestamp: z.string().max(40).optional(),
    data: SignedLeadData,
  })
  .openapi('SignedLeadEvent', {
    description:
      'A Standard Webhooks message (`webhook-id`, `webhook-timestamp`, `webhook-signature`): `type` `lead.created` with `data` a `SignedLeadData`; other types are acknowledged and ignored.',
  });

export type SignedLeadDataValue = z.infer<typeof SignedLeadData>;

/** What a receiver answers a delivery it accepted (2xx): everything in it was committed. */
export const InboundReceipt = z
  .object({
    recorded: z.number().int().openapi({ description: 'New leads and conversation activities written.' }),
    repeated: z.number().int().openapi({ description: 'Messages already recorded by an earlier delivery.' }),
    ignored: z.number().int().openapi({ description: 'Statuses and other notifications, acknowledged and not kept.' }),
    leads: z.array(z.string()).openapi({ description: 'The references of the leads the messages belong to.' }),
    failed: z.number().int().openapi({
      description:
        'Messages that could not be kept (not in the source’s shape, or naming no person that can be reached): not recorded (their ids are, so a retry records nothing twice); listed in `failures`. The answer is still 200.',
    }),
    failures: z
      .array(
        z.object({
          id: z
            .string()
            .openapi({ description: 'The source’s id of the message (or one made from its content when it has none).' }),
          code: z.string().openapi({ description: 'Why, e.g. `invalid_phone`, `invalid_type`.' }),
          path: z.string().nullable().openapi({ description: 'The field of the message at fault, when one is.' }),
        }),
      )
      .optional()
      .openapi({ description: 'Each message not kept (present when `failed` is not 0).' }),
    dropped: z
      .array(z.string())
      .optional()
      .openapi({ description: 'Fields not kept of messages that were: details a form would refuse, an unreadable phone.' }),
  })
  .openapi('InboundReceipt');

const source = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_.-]{0,39}$/)
  .refine((name) => !['website', 'api', 'whatsapp', 'propertyfinder'].includes(name), 'Reserved for other sources.');

export const InboundChannelInput = z
  .strictObject({
    kind: z.enum(inboundKinds),
    source: source.optional().openapi({
      description: 'For `signed`: the name its leads carry as `source` (e.g. `bayut`). Fixed for the other kinds.',
    }),
    secret: text().min(8).max(200).optional().openapi({
      description:
        'WhatsApp: the Meta app secret (required). Property Finder: the subscription secret (at most 32 characters; generated when left out). Signed: a `whsec_` secret (generated when left out).',
    }),
    verify_token: text().min(8).max(200).optional().openapi({ description: 'WhatsApp only; generated when left out.' }),
  })
  .openapi('AdminInboundChannelInput');

export type InboundChannelInputValue = z.infer<typeof InboundChannelInput>;

export const InboundChannelPatch = z
  .strictObject({
    secret: text().min(8).max(200).optional(),
    verify_token: text().min(8).max(200).optional(),
  })
  .openapi('AdminInboundChannelPatch');

export const InboundChannelSchema = z
  .object({
    id: z.string(),
    kind: z.enum(inboundKinds),
    source: z.string(),
    url: z.string().openapi({ description: 'The receiver, its token shown as its first characters and `…`.' }),
    failures: z.object({
      count: z.number().int().openapi({ description: 'Verification failures in the current window (15 minutes).' }),
      since: z.string().nullable(),
      last_audited_at: z.string().nullable(),
    }),
    token_rotated_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('AdminInboundChannel');

export const InboundChannelCreated = InboundChannelSchema.extend({
  url: z.string().openapi({ description: 'The receiver’s address with its token: shown this once (only a hash is kept).' }),
  secret: z.string().nullable().openapi({ description: 'The generated secret, shown once; null when you gave yours.' }),
  verify_token: z.string().nullable().openapi({ description: 'WhatsApp: the verify token to give Meta, shown once.' }),
}).openapi('AdminInboundChannelCreated');

export const InboundChannelList = z.object({ results: z.array(InboundChannelSchema) }).openapi('AdminInboundChannelList');

import { z } from '@hono/zod-openapi';
import { hexHmacMatches } from '../../lib/crypto';
import type { LeadChannel } from '../../schema/common/lead-shape';
import type { PropertyFinderEventValue } from '../../schema/forms/inbound';
import { type InboundParsed, keptText, sourceTime } from './inbound-lead';

/**
 * Property Finder's lead webhooks (Enterprise API 1.0.1, "Webhooks", cited in docs/api-reference.md "Inbound
 * channels"): a POST per event, `{id, type, timestamp, entity, payload}`, signed when the subscription has a secret
 * with `X-Signature: <hex HMAC-SHA256 of the payload with the secret>`. No timestamp is signed: a replay is recognised
 * by the lead's id. The lead's `payload.sender` and `payload.listing` are not described publicly beyond their names:
 * their shape here (`sender.name`, `sender.contacts[{type, value}]`, `listing.id`, `listing.reference`) is assumed
 * from integrations that read them, and said so in the docs.
 */

/** Why a delivery's signature fails, or null when it is the subscription's. */
export async function propertyFinderSignatureFailure(body: Uint8Array, header: string | undefined, secret: string) {
  if (!header) return 'The X-Signature header is missing.';
  return (await hexHmacMatches(secret, body, header)) ? null : 'The signature does not match the body.';
}

/** An email the enquirer gave, when it is one (anything else is not kept: it could never be written to). */
function emailOf(value: string | undefined): string | undefined {
  return value && z.email().safeParse(value).success ? value : undefined;
}

/** The lead events: Property Finder sends project leads as `lead.assigned` or `lead.updated` only, never `lead.created`. */
const leadEvents = new Set(['lead.created', 'lead.assigned', 'lead.updated']);
const channels: Record<string, LeadChannel> = { whatsapp: 'whatsapp', email: 'email', call: 'call' };
const phoneTypes = new Set(['phone', 'mobile', 'whatsapp']);

/**
 * The enquiry of a verified event: a lead event once per Property Finder lead (`entity.id`: the first of its events
 * makes the lead, a later one is a repeat), with its channel, the enquirer and the listing's reference; any other
 * event is acknowledged and ignored.
 */
export function propertyFinderLeads(event: PropertyFinderEventValue, source: string, now: Date): InboundParsed {
  const payload = event.payload;
  if (!leadEvents.has(event.type) || !payload || (event.entity.type !== undefined && event.entity.type !== 'lead')) {
    return { leads: [], failed: [], ignored: 1, dropped: [] };
  }
  const contacts = payload.sender?.contacts ?? [];
  const contact = (wanted: (type: string) => boolean) => contacts.find((c) => wanted(c.type.toLowerCase()))?.value.trim();
  const at = event.timestamp ? sourceTime(new Date(event.timestamp), now) : now;
  const listing = payload.listing?.reference ?? payload.listing?.id;
  return {
    leads: [
      {
        fields: {
          name: keptText(payload.sender?.name),
          email: emailOf(contact((type) => type === 'email')),
          phone: contact((type) => phoneTypes.has(type)) || undefined,
          message: keptText(payload.message),
          listing: listing?.trim() || undefined,
        },
        details: payload.responseLink ? { response_link: payload.responseLink.slice(0, 500) } : undefined,
        origin: {
          rule: 'visitor',
          channel: channels[payload.channel?.toLowerCase() ?? ''] ?? 'other',
          source,
          sourceId: event.entity.id,
          referral: null,
          occurredAt: at,
        },
      },
    ],
    failed: [],
    ignored: 0,
    dropped: [],
  };
}

import { hexHmacMatches } from '../../lib/crypto';
import type { LeadReferral } from '../../schema/common/leads';
import type { WhatsAppMessageValue, WhatsAppNotificationValue } from '../../schema/forms/inbound';
import { type InboundLead, type InboundParsed, keptText, sourceTime } from './inbound-lead';

/**
 * WhatsApp Business Platform (Meta's Cloud API) webhooks, as Meta documents them ("Create a webhook endpoint" and the
 * `messages` webhook reference, cited in docs/api-reference.md "Inbound channels"): a GET handshake answered with
 * `hub.challenge` when `hub.verify_token` is the channel's; POSTs signed with `X-Hub-Signature-256: sha256=<hex
 * HMAC-SHA256 of the raw body with the app secret>`.
 */

/** Why a POST's signature fails, or null when it is Meta's. */
export async function whatsAppSignatureFailure(body: Uint8Array, header: string | undefined, appSecret: string) {
  if (!header) return 'The X-Hub-Signature-256 header is missing.';
  if (!header.startsWith('sha256=')) return 'The X-Hub-Signature-256 header is not "sha256=<hex>".';
  return (await hexHmacMatches(appSecret, body, header.slice('sha256='.length)))
    ? null
    : 'The signature does not match the body.';
}

/** Messages that say nothing to staff: a reaction to a message, a system notice, a type WhatsApp cannot show. */
const silentTypes = new Set(['reaction', 'system', 'unsupported', 'request_welcome', 'ephemeral']);

/** What a message says, whatever its type: its text, a button's or list's title, a caption, a place; else its type. */
function messageText(message: WhatsAppMessageValue): string {
  const said =
    message.text?.body ??
    message.button?.text ??
    message.interactive?.button_reply?.title ??
    message.interactive?.list_reply?.title ??
    message.image?.caption ??
    message.video?.caption ??
    message.document?.caption ??
    [message.location?.name, message.location?.address].filter(Boolean).join(', ');
  return said || `[${message.type}]`;
}

function referralOf(message: WhatsAppMessageValue): LeadReferral | null {
  const r = message.referral;
  if (!r) return null;
  return {
    source_url: r.source_url ?? null,
    source_id: r.source_id ?? null,
    source_type: r.source_type ?? null,
    headline: r.headline ?? null,
    body: r.body ?? null,
    ctwa_clid: r.ctwa_clid ?? null,
  };
}

/**
 * The enquiries of a verified notification: each message of `messages` changes (the sender's number from `from`, as
 * `wa_id` in E.164 with a `+`; their profile name from `contacts`), a conversation's within `windowHours` of its last
 * message becoming an activity of its open lead (functions/forms/lead-record.ts); a time that is none is `now`. Statuses,
 * other fields and silent message types are acknowledged and ignored.
 */
export function whatsAppLeads(
  notification: WhatsAppNotificationValue,
  source: string,
  windowHours: number,
  now: Date,
): InboundParsed {
  const leads: InboundLead[] = [];
  let ignored = 0;
  for (const entry of notification.entry) {
    for (const change of entry.changes) {
      const value = change.value;
      if (change.field !== 'messages' || !value) {
        ignored++;
        continue;
      }
      ignored += value.statuses?.length ?? 0;
      for (const message of value.messages ?? []) {
        if (silentTypes.has(message.type)) {
          ignored++;
          continue;
        }
        const occurredAt = sourceTime(new Date(Number(message.timestamp) * 1000), now);
        const profile = value.contacts?.find((contact) => contact.wa_id === message.from)?.profile;
        leads.push({
          fields: {
            name: keptText(profile?.name),
            phone: `+${message.from.replace(/^\+/, '')}`,
            message: keptText(messageText(message)),
          },
          origin: {
            rule: 'visitor',
            channel: 'whatsapp',
            source,
            sourceId: message.id,
            referral: referralOf(message),
            occurredAt,
            conversation: { since: new Date(occurredAt.getTime() - windowHours * 3_600_000) },
          },
        });
      }
    }
  }
  return { leads, ignored, dropped: [] };
}

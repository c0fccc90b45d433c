import { hexHmacMatches } from '../../lib/crypto';
import type { LeadReferral } from '../../schema/common/lead-shape';
import {
  WhatsAppContact,
  type WhatsAppDeliveryValue,
  WhatsAppMessage,
  type WhatsAppMessageValue,
} from '../../schema/forms/inbound';
import { type FailedItem, type InboundLead, type InboundParsed, itemId, keptText, sourceTime } from './inbound-lead';

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

/** The first problem of an item read by its schema: its code and field (zod's issue, as the problem bodies name it). */
function problemOf(error: { issues: ReadonlyArray<{ code: string; path: PropertyKey[] }> }): {
  code: string;
  path: string | null;
} {
  const issue = error.issues[0];
  return { code: issue?.code ?? 'invalid_request', path: issue?.path.length ? issue.path.map(String).join('.') : null };
}

/**
 * The enquiries of a verified notification: each message of `messages` changes (the sender's number from `from`, as
 * `wa_id` in E.164 with a `+`; their profile name from `contacts`), a conversation's within `windowHours` of its last
 * message becoming an activity of its open lead (functions/forms/lead-record.ts); a time that is none is `now`. Each
 * message is read on its own: one not in Meta's shape is a failed item, the others are kept. Statuses, other fields and
 * silent message types are acknowledged and ignored.
 */
export function whatsAppLeads(
  notification: WhatsAppDeliveryValue,
  source: string,
  windowHours: number,
  now: Date,
): InboundParsed {
  const leads: InboundLead[] = [];
  const failed: FailedItem[] = [];
  let ignored = 0;
  for (const entry of notification.entry) {
    for (const change of entry.changes) {
      const value = change.value;
      if (change.field !== 'messages' || !value) {
        ignored++;
        continue;
      }
      ignored += value.statuses?.length ?? 0;
      const contacts = (value.contacts ?? []).flatMap((contact) => {
        const read = WhatsAppContact.safeParse(contact);
        return read.success ? [read.data] : [];
      });
      for (const sent of value.messages ?? []) {
        const read = WhatsAppMessage.safeParse(sent);
        if (!read.success) {
          const id = itemId((sent as { id?: unknown } | null)?.id, sent);
          failed.push({ id, ...problemOf(read.error), occurredAt: now });
          continue;
        }
        const message = read.data;
        if (silentTypes.has(message.type)) {
          ignored++;
          continue;
        }
        const occurredAt = sourceTime(new Date(Number(message.timestamp) * 1000), now);
        const profile = contacts.find((contact) => contact.wa_id === message.from)?.profile;
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
  return { leads, failed, ignored, dropped: [] };
}

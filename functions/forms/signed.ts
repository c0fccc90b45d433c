import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { fieldErrors } from '../../lib/request-errors';
import { ApiError } from '../../lib/errors';
import { type SignedLeadDataValue, SignedLeadData } from '../../schema/forms/inbound';
import { type InboundParsed, keptDetails, keptText } from './inbound-lead';

/**
 * The generic receiver: any sender that signs with Standard Webhooks (https://www.standardwebhooks.com, the scheme
 * this API signs its own webhooks with), verified by the same library (`standardwebhooks`): `webhook-signature`
 * over `webhook-id.webhook-timestamp.body` with the channel's `whsec_` secret, in constant time, and a timestamp
 * within 5 minutes of now (the library's tolerance, the specification's recommendation) so a replayed message is
 * refused; within those minutes the message id (`webhook-id`, the same on every retry) makes it a repeat.
 */

/** Why a message's signature fails, or null when it is the channel's. */
export function signedFailure(body: string, headers: Headers, secret: string): string | null {
  const header = (name: string) => headers.get(name) ?? '';
  try {
    new Webhook(secret).verify(
      body,
      {
        'webhook-id': header('webhook-id'),
        'webhook-timestamp': header('webhook-timestamp'),
        'webhook-signature': header('webhook-signature'),
      },
      { jsonParse: false },
    );
    return null;
  } catch (error) {
    return error instanceof WebhookVerificationError ? `${error.message}.` : 'The signature could not be checked.';
  }
}

/** The longest `webhook-id` kept (the length of every source's message id, `inbound_messages.message_id`). */
const maxMessageId = 200;

/**
 * The enquiry of a verified `lead.created` message (`data`: a SignedLeadData, refused with 400 at `data.<field>` when
 * it is not one: a sender's mistake to fix); any other type is acknowledged and ignored. Details a form would be
 * refused for are dropped (named in the answer); a `webhook-id` over 200 characters is refused (400).
 */
export function signedLeads(event: { type: string; data: unknown }, messageId: string, source: string, now: Date): InboundParsed {
  if (event.type !== 'lead.created') return { leads: [], failed: [], ignored: 1, dropped: [] };
  // The message id is what makes a retry a repeat: one too long to be kept as the lead's source id is refused.
  if (messageId.length > maxMessageId) {
    throw new ApiError('invalid_request', 'The webhook-id header is too long.', {
      errors: [{ path: 'webhook-id', code: 'too_big', message: `At most ${maxMessageId} characters.` }],
    });
  }
  const parsed = SignedLeadData.safeParse(event.data);
  if (!parsed.success) {
    const errors = fieldErrors(parsed.error).map((e) => ({ ...e, path: `data.${e.path}` }));
    throw new ApiError('invalid_request', 'The lead in `data` is invalid.', { errors });
  }
  const data: SignedLeadDataValue = parsed.data;
  if (data.email === undefined && data.phone === undefined) {
    throw new ApiError('invalid_request', 'The lead in `data` is invalid.', {
      errors: [{ path: 'data.email', code: 'custom', message: 'Send at least one of email or phone.' }],
    });
  }
  const dropped: string[] = [];
  const details = keptDetails(data.details, dropped);
  return {
    leads: [
      {
        fields: {
          name: keptText(data.name),
          email: data.email,
          phone: data.phone,
          message: keptText(data.message),
          language: data.language,
          listing: data.listing,
          service: data.service,
        },
        details,
        origin: {
          rule: 'visitor',
          channel: data.channel,
          source,
          sourceId: messageId,
          referral: null,
          occurredAt: data.occurred_at ? new Date(data.occurred_at) : now,
        },
      },
    ],
    failed: [],
    ignored: 0,
    dropped,
  };
}

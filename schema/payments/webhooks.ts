import { z } from '@hono/zod-openapi';
import { paymentStatuses } from '../platform/payments-db';

/** The payment webhook receiver's documented body (read only after verification) and its answer (issue 34). */

export const ProviderEvent = z
  .object({
    id: z.string().openapi({ description: 'The provider’s event id: an event is acted on once.' }),
    type: z.string().openapi({ example: 'checkout.session.completed' }),
    data: z.object({}).passthrough(),
  })
  .passthrough()
  .openapi('ProviderEvent', { description: 'A Stripe event (https://docs.stripe.com/api/events/object).' });

export const PaymentWebhookReceipt = z
  .object({
    received: z.literal(true),
    acted: z.boolean().openapi({ description: 'Whether this delivery changed a payment.' }),
    payment: z.string().nullable().openapi({ description: 'The payment the event is about (`pay_…`), when it is one of ours.' }),
    status: z.enum(paymentStatuses).nullable(),
  })
  .openapi('PaymentWebhookReceipt');

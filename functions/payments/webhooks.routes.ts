import { z } from '@hono/zod-openapi';
import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import { keyringOf } from '../../lib/crypto-jwe';
import { platformProviderFetch } from '../../lib/payments/index';
import { settleWebhook } from '../../lib/payments/settle';
import type { Handler } from '../../lib/routes';
import { json } from '../../schema/common/api';
import { PaymentWebhookReceipt, ProviderEvent } from '../../schema/payments/webhooks';

/**
 * The payment providers' webhook receiver (issue 34; docs/api-reference.md, "Payments"): a company's account gives its
 * provider this address on one of the company's hosts. No key: the body is verified with the account's signing secret
 * before anything reads it (the body is declared by reference only, so no validator parses it first).
 */
const webhookRoute = defineRoute({
  method: 'post',
  path: '/payments/webhooks/{account_id}',
  operationId: 'receivePaymentWebhook',
  tags: ['Payments'],
  summary: 'Receive a payment provider’s webhook (Stripe or N-Genius)',
  description:
    'The provider’s event for the company’s account, authenticated (Stripe: `Stripe-Signature`, HMAC-SHA256 of `t.body`, within 5 minutes; ' +
    'N-Genius: the header `X-NGenius-Webhook-Secret` with the value set in its portal). ' +
    'The checkout it names is read back from the provider: its reference, amount and currency must be the payment’s ' +
    '(else 409 `payment_mismatch`, audited, nothing changed). A paid checkout makes the payment `succeeded` and its rent ' +
    'payment `received`; a failed or expired one `failed` or `expired`. An event acted on before is answered 200 and ' +
    'changes nothing; a provider that does not answer is 503 (the provider retries).',
  access: { kind: 'inbound' },
  request: {
    params: z.object({ account_id: z.string().min(1).max(100).openapi({ description: 'The payment account’s id.' }) }),
    headers: z.object({
      'stripe-signature': z.string().optional().openapi({ description: 'Stripe’s signature.' }),
      'x-ngenius-webhook-secret': z
        .string()
        .optional()
        .openapi({ description: 'N-Genius: the value the company set for this header in its N-Genius portal.' }),
    }),
    body: {
      required: true,
      description: 'The provider’s event, exactly as signed.',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ProviderEvent' } } },
    },
  },
  responses: { 200: json(PaymentWebhookReceipt, 'Verified; acted on before this answer (or nothing to do)') },
});

const receive: Handler<typeof webhookRoute> = async function receivePaymentWebhook(c) {
  const { db, config, now } = c.var.services;
  const company = c.var.company;
  const answer = await settleWebhook(
    {
      db,
      config,
      keyring: keyringOf(config),
      send: platformProviderFetch,
      now: now(),
      companyId: company.id,
      timeZone: company.time_zone,
    },
    c.req.valid('param').account_id,
    await c.req.text(),
    c.req.raw.headers,
  );
  return c.json(answer, 200);
};

export const paymentWebhooks = createRouter().openapi(webhookRoute, receive);
paymentWebhooks.openAPIRegistry.register('ProviderEvent', ProviderEvent);

import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { decimalInput, moneyOutput } from '../common/money';
import { cardFeeKinds, providerNames } from '../platform/payments-db';

/** A company's payment provider accounts (issue 34): the admin API's bodies and answers. Secrets go in, never out. */

const secret = (what: string) =>
  text()
    .min(8)
    .max(500)
    .openapi({ description: `${what} Kept sealed (encrypted, bound to the account) and never shown again.` });

const CardFeeInput = z
  .strictObject({
    kind: z.enum(cardFeeKinds).openapi({ description: '`fixed`: an amount in the currency; `percent`: of the amount due.' }),
    value: decimalInput.openapi({ example: '2.5' }),
  })
  .openapi('CardFeeInput', { description: 'The card fee passed on to the payer; null or absent: none (the company bears it).' });

export const PaymentAccountInput = z
  .strictObject({
    provider: z.enum(providerNames),
    currency: text()
      .regex(/^[A-Z]{3}$/, { message: 'An ISO 4217 code such as "AED".' })
      .openapi({ description: 'One account per currency: payments in this currency go through it.' }),
    api_key: secret('Stripe: the secret or restricted key (`sk_…`, `rk_…`); N-Genius: the service account’s API key.'),
    webhook_secret: secret('Stripe: the endpoint’s signing secret (`whsec_…`); N-Genius: the custom header’s value.'),
    outlet: text().min(1).max(100).nullable().optional().openapi({ description: 'N-Genius only: the outlet reference.' }),
    card_fee: CardFeeInput.nullable().optional(),
  })
  .openapi('PaymentAccountInput');
export type PaymentAccountValue = z.infer<typeof PaymentAccountInput>;

export const PaymentAccountUpdate = z
  .strictObject({
    api_key: secret('A new key.').optional(),
    webhook_secret: secret('A new signing secret.').optional(),
    outlet: text().min(1).max(100).nullable().optional(),
    card_fee: CardFeeInput.nullable().optional(),
  })
  .openapi('PaymentAccountUpdate');
export type PaymentAccountChange = z.infer<typeof PaymentAccountUpdate>;

export const accountIdParam = z.string().uuid().openapi({ description: 'The account’s id (`account_id`).' });

export const PaymentAccountSchema = z
  .object({
    account_id: z.string(),
    provider: z.enum(providerNames),
    currency: z.string(),
    outlet: z.string().nullable(),
    card_fee: z.object({ kind: z.enum(cardFeeKinds), value: moneyOutput }).nullable(),
    webhook_path: z.string().openapi({
      description:
        'Where the provider sends its webhooks, on any of the company’s hosts: `https://<host>` followed by this path.',
      example: '/api/v1/payments/webhooks/0b6c1f9e-4a8e-4b7e-9a51-3f2d8c7e6a10',
    }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('PaymentAccount');
export const PaymentAccountListSchema = z
  .object({ results: z.array(PaymentAccountSchema), next_cursor: z.null() })
  .openapi('PaymentAccountList');

import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { moneyOutput } from '../common/money';

/** A payment link for an amount due (issue 34): a checkout on the provider's hosted page. */

export const PaymentLinkInput = z
  .strictObject({
    return_url: text()
      .max(2000)
      .url()
      .regex(/^https:\/\//, { message: 'An https URL.' })
      .openapi({
        description: 'Where the payer comes back to after paying (`?payment=pay_…` added) or giving up (`&cancelled=true` too).',
        example: 'https://www.example.com/rent/paid',
      }),
    email: text().max(320).email().nullable().optional().openapi({ description: 'Filled in on the payment page.' }),
  })
  .openapi('PaymentLinkInput');
export type PaymentLinkValue = z.infer<typeof PaymentLinkInput>;

export const PaymentLinkSchema = z
  .object({
    payment: z.string().openapi({ description: 'The payment’s id (`pay_…`): events `payment.*` name it.' }),
    url: z.string().openapi({ description: 'The provider’s hosted payment page: send it to the payer.' }),
    expires_at: z.string().nullable().openapi({ description: 'When the page stops taking the payment.' }),
    amount: moneyOutput.openapi({ description: 'What the payer is asked: the amount due, the card fee and the rounding.' }),
    currency: z.string(),
    card_fee: moneyOutput.openapi({ description: 'The card fee passed on to the payer (0 unless the company’s account says).' }),
    rounding: moneyOutput.openapi({
      description: 'Added so the provider takes the amount: Stripe takes KWD, BHD, OMR, JOD and TND in tens of fils.',
    }),
  })
  .openapi('PaymentLink');

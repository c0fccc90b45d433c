import { z } from '@hono/zod-openapi';
import { accountingAccounts } from '../platform/db';
import { lineKinds } from './db';
import { monthInput } from './statements';

/** The accounting journal of a month (issue 27; docs/api-reference.md, "Owner statements and the accounting journal"). */

export const journalFormats = ['json', 'xero', 'quickbooks'] as const;

export const JournalQuery = z.strictObject({
  month: monthInput,
  format: z.enum(journalFormats).default('json').openapi({
    description:
      '`json` (default); `xero`: Xero’s manual journal import CSV; `quickbooks`: QuickBooks Online’s journal entry import CSV.',
  }),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'An ISO 4217 code such as AED.')
    .optional()
    .openapi({ description: 'Only this currency’s entries. A CSV holds one currency: required when the month has several.' }),
});

const amount = z.string().openapi({ description: 'A decimal string; "0.00" on the other side.', example: '10000.00' });

const JournalLineSchema = z
  .object({
    account: z.enum(accountingAccounts),
    code: z
      .string()
      .nullable()
      .openapi({ description: 'The account’s code (company setting `accounting_accounts`); null until mapped.' }),
    name: z.string().nullable().openapi({ description: 'The account’s name; null until mapped.' }),
    debit: amount,
    credit: amount,
  })
  .openapi('JournalLine');

export const JournalEntrySchema = z
  .object({
    number: z
      .string()
      .openapi({ description: 'Stable: the same entry has the same number in every export.', example: 'OS-1042' }),
    day: z.string().openapi({ description: 'The statement line’s day.', example: '2027-02-03' }),
    kind: z
      .enum([
        ...lineKinds,
        'online_payment',
        'online_payment_unapplied',
        'booking_payment',
        'online_refund',
        'booking_paid_offline',
        'tourism_dirham',
        'tourism_dirham_paid',
      ])
      .openapi({
        description:
          'A statement line’s kind (`booking_received` and `booking_refunded` move a booking’s money between booking receipts and owner payable), or an online payment’s entry: `online_payment` (rent paid at a payment link: the gross to the provider’s clearing account), `online_payment_unapplied` (paid online after the rent was received: owed back to the payer), `booking_payment` (a booking’s deposit or balance paid from the stay page: held for the guest in booking receipts), `online_refund` (a refund the provider made, out of clearing), or `booking_paid_offline` (a booking staff marked paid, the guest having paid outside the API: its tax invoice’s VAT moved out of booking receipts, where the bank feed books what the guest paid, to VAT payable); `tourism_dirham` (on the month’s last day: the month’s Tourism Dirham moved from booking receipts to `tourism_dirham_payable`, owed to DET) and `tourism_dirham_paid` (on the day it was paid over to DET, recorded in the admin API: the liability cleared against `bank`).',
      }),
    narration: z.string(),
    currency: z.string(),
    owner: z.string().nullable().openapi({
      description:
        'The owner’s contact reference; null on an online payment not applied (the payer’s money), a booking’s payment and a refund.',
    }),
    lease: z.string().nullable(),
    home: z.string(),
    payment_id: z.string().nullable(),
    charge_id: z.string().nullable(),
    job: z.string().nullable(),
    online_payment: z.string().nullable().openapi({ description: 'The online payment (`pay_…`) of the entry.' }),
    lines: z.array(JournalLineSchema).openapi({
      description: 'Balanced: its debits equal its credits (a debit and a credit of one amount for a statement line).',
    }),
  })
  .openapi('JournalEntry');

const AccountTotalSchema = z.object({ account: z.enum(accountingAccounts), debit: amount, credit: amount });

export const JournalTotalsSchema = z
  .object({
    currency: z.string(),
    debit: amount,
    credit: amount,
    accounts: z.array(AccountTotalSchema),
    owner_payable: amount.openapi({
      description: 'Credits less debits to the owner payable account: the sum of the month’s statements’ `net`.',
    }),
  })
  .openapi('JournalTotals');

export const JournalSchema = z
  .object({
    month: monthInput,
    status: z.enum(['open', 'closed']),
    closes_on: z.string(),
    entries: z.array(JournalEntrySchema),
    totals: z.array(JournalTotalsSchema).openapi({ description: 'Per currency.' }),
  })
  .openapi('Journal');

import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { calendarDate, listOf, syncQuery } from '../common/api';
import { externalQuery } from '../common/external';
import { ExternalInput, ExternalSchema } from '../common/external';
import { decimalInput, decimalOf, moneyOutput } from '../common/money';
import { WarningSchema } from '../common/warnings';
import { taxCategories, taxCategoryOverride } from '../common/tax';
import { depositOutcomes, feeKinds, leaseStatuses, noticeIntents, noticeParties, rentPaymentStatuses, rentPeriods } from './db';
import { ChequeInput, ChequeSchema } from './rent-payments';

/** Leases (issue 11; docs/api-reference.md, "Leases and rent payments"). */

const instant = z.string().openapi({ example: '2027-01-01T09:30:00.000Z' });
const day = z.string().openapi({ description: 'YYYY-MM-DD, in the company’s time zone.', example: '2027-01-01' });
const reference = text().min(1).max(100);
const contact = reference.openapi({ description: 'A contact’s reference (`P-…`).', example: 'P-7K3M9Q2XAB' });
const memberId = text().min(1).max(100).openapi({ description: 'A member id of this company.' });
const home = text().min(1).max(200).openapi({
  description:
    'A listing of the company, by its English slug: one it offers for lease; another (sale, holiday home) is taken with the warning `not_a_lease_listing`.',
  example: 'marina-2br-apartment-lease',
});
const maxPayments = 120;

export const TermInput = z
  .strictObject({
    start: calendarDate.openapi({ description: 'The lease’s first day.', example: '2027-01-01' }),
    end: calendarDate.openapi({ description: 'The lease’s last day (included).', example: '2027-12-31' }),
  })
  .refine((term) => term.end >= term.start, { path: ['end'], message: 'On or after start.' })
  .openapi('LeaseTermInput');

export const RentInput = z
  .strictObject({ amount: decimalInput.openapi({ example: '120000.00' }), period: z.enum(rentPeriods) })
  .openapi('LeaseRentInput', { description: 'The rent per month or per year.' });

export const FeeInput = z
  .strictObject({
    kind: z.enum(feeKinds).openapi({ description: '`percent`: of each received payment; `fixed`: per received payment.' }),
    value: decimalInput.openapi({ example: '5' }),
  })
  .refine((fee) => fee.kind === 'fixed' || (decimalOf(fee.value)?.lte(100) ?? true), {
    path: ['value'],
    message: 'At most 100 percent.',
  })
  .openapi('LeaseFeeInput', { description: 'The company’s management fee, taken on each received payment.' });

export const ScheduleInput = z
  .union([
    z.strictObject({
      payments: z.number().int().min(1).max(maxPayments).openapi({ description: 'Equal payments over the term.', example: 4 }),
    }),
    z.strictObject({
      rows: z
        .array(z.strictObject({ due_on: calendarDate, amount: decimalInput, cheque: ChequeInput.optional() }))
        .min(1)
        .max(maxPayments)
        .openapi({ description: 'One row per payment (per cheque, for post-dated cheques).' }),
    }),
  ])
  .openapi('LeaseScheduleInput', {
    description: 'A number of equal payments (the first carries the rounding remainder), or explicit rows.',
  });

/** The fields of a lease that only a draft may change (its terms); the others change at any time. */
export const leaseTermFields = [
  'home',
  'renter',
  'landlord',
  'term',
  'rent',
  'deposit',
  'notice_days',
  'renewal_terms',
  'schedule',
] as const;

const noticeDays = z.number().int().min(0).max(3650);
const registration = text().trim().min(1).max(100).openapi({ description: 'E.g. the local tenancy registration number.' });
const renewalTerms = text().trim().max(2000);
const notes = text().trim().max(5000);

export const LeaseInput = z
  .strictObject({
    home,
    renter: contact,
    landlord: contact,
    term: TermInput,
    rent: RentInput,
    deposit: decimalInput.default('0').openapi({ example: '6000.00' }),
    registration: registration.optional(),
    notice_days: noticeDays.optional().openapi({ description: 'The contract’s notice period; default the company’s.' }),
    renewal_terms: renewalTerms.optional(),
    schedule: ScheduleInput,
    fee: FeeInput.optional(),
    handler: memberId.optional(),
    notes: notes.optional(),
    tax_category: taxCategoryOverride.optional(),
    external: ExternalInput.optional(),
  })
  .refine((lease) => lease.renter !== lease.landlord, { path: ['landlord'], message: 'Not the renter.' })
  .openapi('LeaseInput');

export const LeasePatchInput = z
  .strictObject({
    home: home.optional(),
    renter: contact.optional(),
    landlord: contact.optional(),
    term: TermInput.optional(),
    rent: RentInput.optional(),
    deposit: decimalInput.optional(),
    notice_days: noticeDays.optional(),
    renewal_terms: renewalTerms.nullable().optional(),
    schedule: ScheduleInput.optional(),
    registration: registration.nullable().optional(),
    fee: FeeInput.nullable().optional(),
    handler: memberId.nullable().optional(),
    notes: notes.nullable().optional(),
    tax_category: taxCategoryOverride.optional(),
    external: ExternalInput.optional(),
  })
  .openapi('LeasePatch', {
    description:
      'A draft’s terms (its schedule regenerated); registration, fee, handler, notes, tax category and your id at any time.',
  });

export const NoticeInput = z
  .strictObject({
    given_on: calendarDate.optional().openapi({ description: 'The day the notice was given; default today.' }),
    by: z.enum(noticeParties),
    intent: z.enum(noticeIntents),
    vacate_on: calendarDate.optional().openapi({ description: 'A vacate notice’s day of leaving; default the term’s last day.' }),
    proposed_rent: decimalInput
      .optional()
      .openapi({ description: 'A notice to renew or to change the rent: the rent proposed.' }),
    text: text().trim().max(2000).optional(),
  })
  .refine((n) => n.intent === 'vacate' || n.vacate_on === undefined, { path: ['vacate_on'], message: 'Only on a vacate notice.' })
  .refine((n) => n.intent !== 'vacate' || n.proposed_rent === undefined, {
    path: ['proposed_rent'],
    message: 'Not on a vacate notice.',
  })
  .openapi('LeaseNoticeInput');

export const RenewInput = z
  .strictObject({
    term: TermInput.optional().openapi({ description: 'Default: following the old term, as long.' }),
    rent: RentInput.optional().openapi({ description: 'Default: the rent last proposed in a notice, else the old rent.' }),
    schedule: ScheduleInput.optional().openapi({ description: 'Default: as many equal payments as the old lease.' }),
    notes: notes.optional(),
  })
  .openapi('LeaseRenewInput');

export const EndInput = z
  .strictObject({
    ended_on: calendarDate.optional().openapi({ description: 'The lease’s last day; default today.' }),
    deposit: z
      .strictObject({
        outcome: z.enum(depositOutcomes),
        deductions: decimalInput.optional().openapi({ description: 'With `returned_with_deductions`: the amount kept.' }),
        reason: text().trim().min(1).max(2000).optional(),
      })
      .refine((d) => (d.outcome === 'returned_with_deductions') === (d.deductions !== undefined), {
        path: ['deductions'],
        message: 'Given with returned_with_deductions, and only then.',
      })
      .refine((d) => (d.outcome === 'returned_with_deductions') === (d.reason !== undefined), {
        path: ['reason'],
        message: 'Given with returned_with_deductions, and only then.',
      })
      .refine((d) => decimalOf(d.deductions)?.gt(0) ?? true, { path: ['deductions'], message: 'Above zero.' }),
  })
  .openapi('LeaseEndInput');

const NoticeSchema = z
  .object({
    given_on: day,
    by: z.enum(noticeParties),
    intent: z.enum(noticeIntents),
    vacate_on: day.nullable(),
    proposed_rent: moneyOutput.nullable(),
    text: z.string().nullable(),
    recorded_at: instant,
  })
  .openapi('LeaseNotice');

export const LeaseSchema = z
  .object({
    reference: z.string().openapi({ example: 'T-7K3M9Q2XAB' }),
    home: z.string().openapi({ description: 'The listing’s English slug.' }),
    renter: z.string(),
    landlord: z.string(),
    status: z.enum(leaseStatuses),
    term: z.object({ start: day, end: day }),
    rent: z.object({
      amount: moneyOutput,
      period: z.enum(rentPeriods),
      term_total: moneyOutput.openapi({ description: 'The rent of the whole term.' }),
    }),
    deposit: z.object({
      amount: moneyOutput,
      outcome: z.enum(depositOutcomes).nullable(),
      deductions: moneyOutput.nullable(),
      reason: z.string().nullable(),
    }),
    registration: z.string().nullable(),
    notice: z.object({ period_days: z.number().int(), given: z.array(NoticeSchema) }),
    renewal: z.object({
      terms: z.string().nullable(),
      renews: z.string().nullable().openapi({ description: 'The lease this one renews.' }),
      renewed_by: z.string().nullable().openapi({ description: 'This lease’s renewal.' }),
    }),
    schedule: z.object({
      payments: z.number().int().nullable().openapi({ description: 'The number of equal payments; null for explicit rows.' }),
      rows: z.array(
        z.object({
          payment_id: z.string(),
          due_on: day,
          amount: moneyOutput,
          status: z.enum(rentPaymentStatuses),
          cheque: ChequeSchema.nullable(),
        }),
      ),
    }),
    fee: z.object({ kind: z.enum(feeKinds), value: z.string() }).nullable(),
    handler: z.string().nullable(),
    notes: z.string().nullable(),
    tax_category: z.enum(taxCategories).nullable().openapi({
      description:
        'The category of its rent over its listing’s and the company’s default (docs/api-reference.md, "Tax"); null: theirs.',
    }),
    external: z.array(ExternalSchema),
    warnings: z.array(WarningSchema),
    activated_at: instant.nullable(),
    ended_on: day.nullable(),
    created_at: instant,
    updated_at: instant,
  })
  .openapi('Lease');

export const LeaseListSchema = listOf(LeaseSchema, 'LeaseList');

export const LeasesQuery = z.strictObject({
  ...syncQuery,
  ...externalQuery,
  status: z.enum(leaseStatuses).optional(),
  home: home.optional(),
});

export const LeaseParams = z.object({ reference });

export type LeaseInputValue = z.infer<typeof LeaseInput>;
export type LeasePatchValue = z.infer<typeof LeasePatchInput>;
export type NoticeInputValue = z.infer<typeof NoticeInput>;
export type RenewInputValue = z.infer<typeof RenewInput>;
export type EndInputValue = z.infer<typeof EndInput>;
export type ScheduleInputValue = z.infer<typeof ScheduleInput>;

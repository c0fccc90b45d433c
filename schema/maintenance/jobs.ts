import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { calendarDate, listOf, syncQuery } from '../common/api';
import { ExternalInput, ExternalSchema, externalQuery } from '../common/external';
import { decimalInput, moneyOutput } from '../common/money';
import { WarningSchema } from '../common/warnings';
import { approvalStates, jobCategories, jobPriorities, jobStatuses, payers } from './db';
import { contractorId, dayOut, homeSlug, instantOut, longText, memberId, reference } from './fields';

/** Jobs (issue 12; docs/api-reference.md, "Maintenance"). */

const clock = text().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'A time HH:MM.');

export const WindowInput = z
  .strictObject({ start: clock.openapi({ example: '09:00' }), end: clock.openapi({ example: '12:00' }) })
  .refine((w) => w.end > w.start, { path: ['end'], message: 'After start.' })
  .openapi('JobWindowInput', { description: 'The time of day the work is expected, in the company’s time zone.' });

/** Who does the work: a contractor or a member, never both. */
const who = {
  contractor: contractorId.nullable().optional(),
  member: memberId.nullable().optional(),
};
const oneWho = <T extends { contractor?: string | null; member?: string | null }>(v: T) =>
  !(typeof v.contractor === 'string' && typeof v.member === 'string');
const oneWhoIssue = { path: ['member'], message: 'A contractor or a member, not both.' };

export const JobInput = z
  .strictObject({
    home: homeSlug,
    category: z.enum(jobCategories),
    priority: z.enum(jobPriorities).default('normal'),
    problem: longText().openapi({ description: 'What is wrong, as reported.', example: 'The kitchen tap leaks.' }),
    payer: z.enum(payers).default('owner').openapi({ description: 'Who pays for the work (default the owner).' }),
    estimate: decimalInput.optional().openapi({ example: '450.00' }),
    ...who,
    external: ExternalInput.optional().openapi({
      description: 'The helpdesk ticket: sent again, the same job comes back (200).',
    }),
  })
  .refine(oneWho, oneWhoIssue)
  .openapi('JobInput');

export const JobPatchInput = z
  .strictObject({
    problem: longText().optional(),
    category: z.enum(jobCategories).optional(),
    priority: z.enum(jobPriorities).optional(),
    payer: z.enum(payers).optional(),
    estimate: decimalInput.nullable().optional(),
    ...who,
    work_done: longText().nullable().optional(),
    external: ExternalInput.optional(),
  })
  .refine(oneWho, oneWhoIssue)
  .openapi('JobPatch');

export const ScheduleInput = z
  .strictObject({
    day: calendarDate,
    window: WindowInput.nullable().optional().openapi({ description: 'Default: the job’s window, if any.' }),
    ...who,
    block_calendar: z.boolean().default(false).openapi({
      description:
        'A holiday home only: block the day’s night in the booking calendar (not when a stay covers it: warning `calendar_taken`).',
    }),
  })
  .refine(oneWho, oneWhoIssue)
  .openapi('JobScheduleInput', { description: 'Who does it defaults to who the job names.' });

export const CompleteInput = z
  .strictObject({
    work_done: longText().optional().openapi({ description: 'What was done.' }),
    done_on: calendarDate.optional().openapi({ description: 'Default: today.' }),
  })
  .openapi('JobCompleteInput');

export const CancelInput = z.strictObject({ reason: longText(2000).optional() }).openapi('JobCancelInput');

export const approvalDecisions = ['requested', 'approved', 'declined', 'waived'] as const;
export const ApprovalInput = z
  .strictObject({
    decision: z.enum(approvalDecisions).openapi({
      description: '`requested`: ask the owner; `approved` or `declined`: the owner’s answer; `waived`: go ahead without one.',
    }),
    note: longText(2000).optional(),
  })
  .openapi('JobApprovalInput');

export const JobSchema = z
  .object({
    reference: z.string().openapi({ example: 'J-7K3M9Q2XAB' }),
    home: z.string().openapi({ description: 'The listing’s English slug.' }),
    lease: z.string().nullable().openapi({ description: 'The home’s active lease when the job was added.' }),
    category: z.enum(jobCategories),
    priority: z.enum(jobPriorities),
    status: z.enum(jobStatuses),
    problem: z.string(),
    work_done: z.string().nullable(),
    contractor: z.string().nullable().openapi({ description: 'The `contractor_id` doing the work.' }),
    member: z.string().nullable().openapi({ description: 'The member doing the work.' }),
    day: dayOut.nullable(),
    window: z.object({ start: z.string(), end: z.string() }).nullable(),
    calendar: z.object({
      block_wanted: z.boolean().openapi({ description: 'The schedule asked to block the day.' }),
      blocked: z.boolean().openapi({ description: 'The day is blocked in the booking calendar for this job.' }),
    }),
    estimate: moneyOutput.nullable(),
    payer: z.enum(payers),
    approval: z.object({
      status: z.enum(approvalStates),
      note: z.string().nullable(),
      requested_at: instantOut.nullable(),
      answered_at: instantOut.nullable(),
    }),
    photos: z.number().int().openapi({ description: 'How many photos the company keeps for the job.' }),
    done_on: dayOut.nullable(),
    cancel_reason: z.string().nullable(),
    external: z.array(ExternalSchema),
    warnings: z.array(WarningSchema),
    created_at: instantOut,
    updated_at: instantOut,
  })
  .openapi('Job');

export const JobListSchema = listOf(JobSchema, 'JobList');

export const JobsQuery = z.strictObject({
  ...syncQuery,
  ...externalQuery,
  status: z.enum(jobStatuses).optional(),
  home: homeSlug.optional(),
  lease: reference.optional(),
  contractor: contractorId.optional(),
});

export const JobParams = z.object({ reference });

export type JobInputValue = z.infer<typeof JobInput>;
export type JobPatchValue = z.infer<typeof JobPatchInput>;
export type ScheduleValue = z.infer<typeof ScheduleInput>;
export type CompleteValue = z.infer<typeof CompleteInput>;
export type CancelValue = z.infer<typeof CancelInput>;
export type ApprovalValue = z.infer<typeof ApprovalInput>;

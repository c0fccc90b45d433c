import type { Context } from 'hono';
import { createRouter } from '../../lib/app';
import { actorOf } from '../../lib/audit';
import type { CausedBy } from '../../lib/events';
import type { Trx } from '../../lib/db/index';
import type { AppEnv } from '../../lib/env';
import { transactionRetryingConflict } from '../../lib/external-ids';
import { createdOnce, narrowed, readOne, readWritten, syncList, syncResource } from '../../lib/resources';
import { json, jsonBody, noQuery, problem } from '../../schema/common/api';
import {
  ApprovalInput,
  CancelInput,
  CompleteInput,
  JobInput,
  JobListSchema,
  JobParams,
  JobPatchInput,
  JobSchema,
  JobsQuery,
  ScheduleInput,
} from '../../schema/maintenance/jobs';
import type { Company } from '../../schema/platform/db';
import { answerApproval, cancelJob, completeJob, scheduleJob } from './job-actions';
import { createJob, selectJobs, updateJob } from './jobs';
import { type JobRecord, type JobView, presentJobs } from './jobs.present';
import { maintenanceRoute } from './route';

/** A job carries what a renter reported (free text that may name them): every read is audited. */
const resource = syncResource<JobRecord, JobView>('jobs', {
  idType: 'uuid',
  noun: 'job',
  external: 'job',
  select: selectJobs,
  present: (services, rows) => presentJobs(services.db, rows),
  personal: (view) => view.reference,
});

const record = { table: 'jobs', column: 'reference', param: 'reference' } as const;

export const jobExample = {
  home: 'marina-gate-1br-furnished',
  category: 'plumbing' as const,
  priority: 'high' as const,
  problem: 'The kitchen tap leaks under the sink.',
  estimate: '450.00',
  external: { source: 'helpdesk', id: 'ticket-4711' },
};

const jobAnswer = json(JobSchema, 'The job, with the warnings standing on it');
const transition = problem('`invalid_transition`: the job is done or cancelled');

const listRoute = maintenanceRoute('read:maintenance', {
  method: 'get',
  path: '/jobs',
  summary: 'Jobs, in (updated_at, id) order for sync',
  request: { query: JobsQuery },
  responses: { 200: json(JobListSchema, 'A page of jobs') },
});
const oneRoute = maintenanceRoute('read:maintenance', {
  method: 'get',
  path: '/jobs/{reference}',
  record,
  summary: 'One job',
  request: { params: JobParams, query: noQuery },
  responses: { 200: jobAnswer },
});
const addRoute = maintenanceRoute('write:maintenance', {
  method: 'post',
  path: '/jobs',
  summary: 'Add a job on a home (on its active lease when it has one); `external` carries the helpdesk ticket',
  request: { body: jsonBody(JobInput, jobExample) },
  responses: {
    201: json(JobSchema, 'A new open job'),
    200: json(JobSchema, 'The job added before with the same external id'),
    409: problem('`contractor_stopped`: the contractor named takes no new work'),
  },
});
const patchRoute = maintenanceRoute('write:maintenance', {
  method: 'patch',
  path: '/jobs/{reference}',
  record,
  summary: 'Change what is wrong, category, priority, payer, estimate, who does it, what was done, your id',
  request: { params: JobParams, body: jsonBody(JobPatchInput, { priority: 'urgent' }) },
  responses: { 200: jobAnswer, 409: problem('`contractor_stopped`: the contractor named takes no new work') },
});
const scheduleRoute = maintenanceRoute('write:maintenance', {
  method: 'post',
  path: '/jobs/{reference}/schedule',
  record,
  summary: 'Schedule (or reschedule) a job: day, window, who does it; optionally block a holiday home’s calendar',
  request: { params: JobParams, body: jsonBody(ScheduleInput, { day: '2027-01-15', window: { start: '09:00', end: '12:00' } }) },
  responses: {
    200: jobAnswer,
    409: problem('`invalid_transition`: the job is done or cancelled; `contractor_stopped`: the contractor takes no new work'),
  },
});
const completeRoute = maintenanceRoute('write:maintenance', {
  method: 'post',
  path: '/jobs/{reference}/complete',
  record,
  summary: 'The work is done (sent again: the done job)',
  request: { params: JobParams, body: jsonBody(CompleteInput, { work_done: 'Replaced the tap cartridge.' }) },
  responses: { 200: jobAnswer, 409: transition },
});
const cancelRoute = maintenanceRoute('write:maintenance', {
  method: 'post',
  path: '/jobs/{reference}/cancel',
  record,
  summary: 'The job will not happen; its calendar block is released (sent again: the cancelled job)',
  request: { params: JobParams, body: jsonBody(CancelInput, { reason: 'The renter fixed it.' }) },
  responses: { 200: jobAnswer, 409: problem('`invalid_transition`: the job is done') },
});
const approvalRoute = maintenanceRoute('write:maintenance', {
  method: 'post',
  path: '/jobs/{reference}/approval',
  operationId: 'recordJobApproval',
  record,
  summary: 'Ask the owner, record the answer, or go ahead without one (never locks the job)',
  request: { params: JobParams, body: jsonBody(ApprovalInput, { decision: 'requested' }) },
  responses: { 200: jobAnswer },
});

type Action<I> = (trx: Trx, company: Company, reference: string, input: I, now: Date, causedBy: CausedBy) => Promise<string>;

/** An action on one job, in one transaction: the job as it is afterwards. */
async function act<I>(c: Context<AppEnv>, reference: string, input: I, action: Action<I>) {
  const { company, services } = c.var;
  const id = await services.db
    .transaction()
    .execute((trx) => action(trx, company, reference, input, services.now(), actorOf(c.var.caller)));
  return readWritten(c, resource, id);
}

export const jobs = createRouter()
  .openapi(listRoute, async (c) => {
    const { status, home, lease, contractor, ...query } = c.req.valid('query');
    const filtered = narrowed(resource, selectJobs, (select) => {
      let narrow = select;
      if (status !== undefined) narrow = narrow.where('jobs.status', '=', status);
      if (home !== undefined) narrow = narrow.where('home.slug_en', '=', home);
      if (lease !== undefined) narrow = narrow.where('lease.reference', '=', lease);
      if (contractor !== undefined) narrow = narrow.where('jobs.contractor_id', '=', contractor);
      return narrow;
    });
    return c.json(await syncList(c, filtered, query), 200);
  })
  .openapi(oneRoute, async (c) => c.json(await readOne(c, resource, 'reference', c.req.valid('param').reference), 200))
  .openapi(addRoute, async (c) => {
    const input = c.req.valid('json');
    const company = c.var.company;
    const { view, status } = await createdOnce(c, resource, (trx) => createJob(trx, company, input));
    return c.json(view, status);
  })
  .openapi(patchRoute, async (c) => {
    const { reference } = c.req.valid('param');
    const input = c.req.valid('json');
    const company = c.var.company;
    const id = await transactionRetryingConflict(c.var.services.db, (trx) => updateJob(trx, company, reference, input));
    return c.json(await readWritten(c, resource, id), 200);
  })
  .openapi(scheduleRoute, async (c) =>
    c.json(await act(c, c.req.valid('param').reference, c.req.valid('json'), scheduleJob), 200),
  )
  .openapi(completeRoute, async (c) =>
    c.json(await act(c, c.req.valid('param').reference, c.req.valid('json'), completeJob), 200),
  )
  .openapi(cancelRoute, async (c) => c.json(await act(c, c.req.valid('param').reference, c.req.valid('json'), cancelJob), 200))
  .openapi(approvalRoute, async (c) =>
    c.json(await act(c, c.req.valid('param').reference, c.req.valid('json'), answerApproval), 200),
  );

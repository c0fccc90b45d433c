import { createRouter } from '../../lib/app';
import { changed, narrowed, readOne, syncList, syncResource, written } from '../../lib/resources';
import type { Handler } from '../../lib/routes';
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
import { cancelJob, completeJob, recordApproval, scheduleJob } from './job-status';
import { addJob, changeJob } from './jobs';
import { type JobRecord, type JobView, presentJob, selectJobs } from './jobs.present';
import { maintenanceRoute } from './scopes';

/** A job carries what a renter reported (free text that may name them): every read is audited. */
const resource = syncResource<JobRecord, JobView>('jobs', {
  idType: 'uuid',
  noun: 'job',
  external: 'job',
  select: selectJobs,
  present: (_services, rows) => rows.map(presentJob),
  personal: (view) => view.reference,
});

const versioned = { table: 'jobs', column: 'reference', param: 'reference' } as const;

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
  versioned,
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
  versioned,
  summary: 'Change what is wrong, category, priority, payer, estimate, who does it, what was done, your id',
  request: { params: JobParams, body: jsonBody(JobPatchInput, { priority: 'urgent' }) },
  responses: { 200: jobAnswer, 409: problem('`contractor_stopped`: the contractor named takes no new work') },
});
const scheduleRoute = maintenanceRoute('write:maintenance', {
  method: 'post',
  path: '/jobs/{reference}/schedule',
  versioned,
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
  versioned,
  summary: 'The work is done (sent again: the done job)',
  request: { params: JobParams, body: jsonBody(CompleteInput, { work_done: 'Replaced the tap cartridge.' }) },
  responses: { 200: jobAnswer, 409: transition },
});
const cancelRoute = maintenanceRoute('write:maintenance', {
  method: 'post',
  path: '/jobs/{reference}/cancel',
  versioned,
  summary: 'The job will not happen; its calendar block is released (sent again: the cancelled job)',
  request: { params: JobParams, body: jsonBody(CancelInput, { reason: 'The renter fixed it.' }) },
  responses: { 200: jobAnswer, 409: problem('`invalid_transition`: the job is done') },
});
const approvalRoute = maintenanceRoute('write:maintenance', {
  method: 'post',
  path: '/jobs/{reference}/approval',
  operationId: 'recordJobApproval',
  versioned,
  summary: 'Ask the owner, record the answer, or go ahead without one (never locks the job)',
  request: { params: JobParams, body: jsonBody(ApprovalInput, { decision: 'requested' }) },
  responses: { 200: jobAnswer },
});

const listJobs: Handler<typeof listRoute> = async (c) => {
  const { status, home, lease, contractor, ...query } = c.req.valid('query');
  const filtered = narrowed(resource, selectJobs, (select) =>
    select
      .$if(status !== undefined, (q) => q.where('jobs.status', '=', status!))
      .$if(home !== undefined, (q) => q.where('home.slug_en', '=', home!))
      .$if(lease !== undefined, (q) => q.where('lease.reference', '=', lease!))
      .$if(contractor !== undefined, (q) => q.where('jobs.contractor_id', '=', contractor!)),
  );
  return c.json(await syncList(c, filtered, query), 200);
};

const oneJob: Handler<typeof oneRoute> = async (c) =>
  c.json(await readOne(c, resource, 'reference', c.req.valid('param').reference), 200);

const postJob: Handler<typeof addRoute> = async (c) => {
  const { view, status } = await written(c, resource, (scope) => addJob(scope, c.req.valid('json')));
  return c.json(view, status);
};

const patchJob: Handler<typeof patchRoute> = async (c) =>
  c.json(await changed(c, resource, (scope) => changeJob(scope, c.req.valid('param').reference, c.req.valid('json'))), 200);

const postSchedule: Handler<typeof scheduleRoute> = async (c) =>
  c.json(await changed(c, resource, (scope) => scheduleJob(scope, c.req.valid('param').reference, c.req.valid('json'))), 200);

const postComplete: Handler<typeof completeRoute> = async (c) =>
  c.json(await changed(c, resource, (scope) => completeJob(scope, c.req.valid('param').reference, c.req.valid('json'))), 200);

const postCancel: Handler<typeof cancelRoute> = async (c) =>
  c.json(await changed(c, resource, (scope) => cancelJob(scope, c.req.valid('param').reference, c.req.valid('json'))), 200);

const postApproval: Handler<typeof approvalRoute> = async (c) =>
  c.json(await changed(c, resource, (scope) => recordApproval(scope, c.req.valid('param').reference, c.req.valid('json'))), 200);

export const jobs = createRouter()
  .openapi(listRoute, listJobs)
  .openapi(oneRoute, oneJob)
  .openapi(addRoute, postJob)
  .openapi(patchRoute, patchJob)
  .openapi(scheduleRoute, postSchedule)
  .openapi(completeRoute, postComplete)
  .openapi(cancelRoute, postCancel)
  .openapi(approvalRoute, postApproval);

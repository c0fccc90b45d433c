import { addDays } from '../lib/dates';
import type { TriggerContext, TriggerTable } from '../lib/event-triggers';
import type { EventType } from '../schema/platform/events';
import { writeOnce } from '../lib/write';
import { addActivity } from './crm/activities';
import { changeContact } from './crm/contacts';
import { changeLead } from './crm/lead-changes';
import { addMember } from './crm/members';
import { addTask, changeTask } from './crm/tasks';
import { endLease } from './leases/end';
import { changeLease } from './leases/lease-changes';
import { giveNotice } from './leases/notices';
import { addCharge, changeCharge } from './maintenance/charges';
import { cancelJob, completeJob, recordApproval, scheduleJob } from './maintenance/job-status';
import { addJob } from './maintenance/jobs';
import { moveDeal } from './pipelines/deal-stages';
import { addDeal } from './pipelines/deal-create';
import { demoPipelines } from './pipelines/demo';
import { createPipeline, listPipelines } from './pipelines/pipelines';
import { addViewing, changeViewing } from './pipelines/viewings';
import { stepBooking } from './stay/bookings';
import { writeRates } from './stay/rates';
import { billingTriggers } from './triggers-billing';
import { scheduledTriggers } from './triggers-scheduled';
import { stayTriggers } from './triggers-stay';
import {
  activeLease,
  admin,
  bouncedPayment,
  draftLease,
  enquiry,
  heldStay,
  importHome,
  person,
  receivedPayment,
  savedSearch,
  scopeOf,
  stepSavedSearch,
  steps,
  today,
  written,
} from './triggers-support';

/**
 * The fixtures of `events trigger` (issue 38): for every type of the event catalogue, the steps that make the records
 * whose real operations emit it, in the trigger's transaction (lib/event-triggers.ts marks what they record). Each run
 * makes its own records, named with the run's token (a home cloned from the demo catalogue, its people), so a type can be
 * triggered again and again; the company's own records are never touched. Each type is
 * defined once: here, or in the file of its family (functions/triggers-<family>.ts), whose shared steps are in
 * functions/triggers-support.ts. A type no fixture makes here says why.
 */

// CRM: a contact, a task on them, an activity.
async function contactChanged(t: TriggerContext) {
  const reference = await person(t, 'buyer');
  written(await changeContact(scopeOf(t), reference, { name: `Test buyer ${t.token} (changed)` }));
}
async function task(t: TriggerContext) {
  const created = await addTask(scopeOf(t), {
    title: `Call back ${t.token}`,
    source: 'trigger',
    external_id: `task-${t.token}`,
    person: await person(t, 'buyer'),
  });
  return created.row;
}
async function taskDone(t: TriggerContext) {
  const created = await task(t);
  written(await changeTask(scopeOf(t), created.id, { status: 'done' }));
}
async function activity(t: TriggerContext) {
  const reference = await person(t, 'buyer');
  await addActivity(scopeOf(t), { type: 'note', source: 'trigger', external_id: `note-${t.token}`, person: reference });
}

// Leads: an enquiry from the company's server (as POST /leads with a server key), then staff's changes.
async function leadChanged(t: TriggerContext, change: 'status' | 'assignee') {
  const { reference } = await enquiry(t);
  const input =
    change === 'status'
      ? { status: 'contacted' as const }
      : {
          assignee: (
            await addMember(t.db, t.company.id, { name: `Test member ${t.token}`, email: null, department: null, active: true })
          ).id,
        };
  written(await writeOnce(() => changeLead(scopeOf(t), reference, input)));
}

// Deals and viewings, on the company's first pipeline (the demo's sales pipeline when it has none).
async function deal(t: TriggerContext) {
  const pipelines = await listPipelines(t.trx, t.company.id);
  const pipeline = pipelines[0] ?? (await createPipeline(t.trx, t.company.id, demoPipelines[0]!));
  const added = written(await addDeal(scopeOf(t), { pipeline: pipeline.key, person: await person(t, 'buyer') }));
  return { reference: added.row.reference, stages: pipeline.stages };
}
const dealMoved = (kind: 'open' | 'won' | 'lost') => async (t: TriggerContext) => {
  const { reference, stages } = await deal(t);
  const open = stages.filter((stage) => stage.kind === 'open');
  const to = kind === 'open' ? open[open.length - 1] : stages.find((stage) => stage.kind === kind);
  if (!to) throw new Error(`the pipeline has no ${kind} stage`);
  await moveDeal(scopeOf(t), reference, { stage: to.key, reason: 'A test event.' });
};
async function viewing(t: TriggerContext): Promise<string> {
  const { reference } = await deal(t);
  const home = (await importHome(t, 'sale')).slug;
  const time = new Date(t.now.getTime() + 3 * 86_400_000).toISOString();
  return written(await addViewing(scopeOf(t), { deal: reference, home, time })).row.reference;
}
const viewingChanged = (status?: 'done' | 'cancelled' | 'missed') => async (t: TriggerContext) => {
  const reference = await viewing(t);
  const time = new Date(t.now.getTime() + 4 * 86_400_000).toISOString();
  await changeViewing(scopeOf(t), reference, status ? { status } : { time });
};

// A visitor's saved search (as POST /saved-searches), then their link's steps.
const searchStepped = (to: 'active' | 'stopped') => async (t: TriggerContext) => {
  await stepSavedSearch(t, await savedSearch(t), to);
};

// A holiday home's nightly price for a week a month ahead, as staff set it.
async function rates(t: TriggerContext) {
  const slug = (await importHome(t, 'holiday_home')).slug;
  const starts_on = addDays(today(t), 30);
  const ends_on = addDays(starts_on, 7);
  const range = {
    starts_on,
    ends_on,
    price: '900.00',
    min_nights: null,
    max_nights: null,
    closed_to_arrival: false,
    closed_to_departure: false,
    closed: false,
  };
  await writeRates(t.db, t.company, slug, { ranges: [range], starts_on, ends_on }, { causedBy: admin }, t.now);
}

// Leases: a draft of a year from this month on a cloned home, paid by 4 cheques (functions/triggers-support.ts).
async function leaseChanged(t: TriggerContext) {
  const { reference } = await draftLease(t);
  written(await writeOnce(() => changeLease(scopeOf(t), reference, { notice_days: 60 })));
}
async function noticeGiven(t: TriggerContext) {
  const { reference } = await activeLease(t);
  await writeOnce(() => giveNotice(scopeOf(t), reference, { given_on: today(t), by: 'renter', intent: 'vacate' }));
}
async function ended(t: TriggerContext) {
  const { reference } = await activeLease(t);
  await writeOnce(() => endLease(scopeOf(t), reference, { ended_on: today(t), deposit: { outcome: 'returned' } }));
}

// Stays: a request for 3 nights a month ahead at a cloned holiday home (functions/triggers-support.ts), then staff's steps.
const requested = async (t: TriggerContext) => (await heldStay(t)).booking.reference;
async function confirmed(t: TriggerContext): Promise<string> {
  const reference = await requested(t);
  await stepBooking(t.db, t.company.id, reference, 'confirm', admin, t.now);
  return reference;
}
const bookingStep = (action: 'mark_paid' | 'cancel') => async (t: TriggerContext) => {
  await stepBooking(t.db, t.company.id, await confirmed(t), action, admin, t.now);
};

// Maintenance: a job on a cloned home, with a contractor-less schedule, and its charges.
async function job(t: TriggerContext, estimate?: string): Promise<string> {
  const added = await addJob(scopeOf(t), {
    home: (await importHome(t, 'lease')).slug,
    category: 'plumbing',
    priority: 'normal',
    payer: 'owner',
    problem: `A test event’s job ${t.token}.`,
    ...(estimate ? { estimate } : {}),
  });
  return written(added).row.reference;
}
async function scheduled(t: TriggerContext): Promise<string> {
  const reference = await job(t);
  await scheduleJob(scopeOf(t), reference, { day: today(t), block_calendar: false });
  return reference;
}
async function done(t: TriggerContext): Promise<string> {
  const reference = await scheduled(t);
  await completeJob(scopeOf(t), reference, { work_done: 'Fixed for a test event.', done_on: today(t) });
  return reference;
}
async function approvalAsked(t: TriggerContext): Promise<string> {
  const reference = await job(t, '5400.00');
  await recordApproval(scopeOf(t), reference, { decision: 'requested', note: 'A test event.' });
  return reference;
}
async function charged(t: TriggerContext): Promise<string> {
  const reference = await done(t);
  return written(await addCharge(scopeOf(t), { job: reference, cost: '100.00', description: 'A test event’s charge' })).row.id;
}

const baseTriggers = {
  'lead.created': steps(enquiry),
  'lead.assigned': steps((t) => leadChanged(t, 'assignee')),
  'lead.status_changed': steps((t) => leadChanged(t, 'status')),
  'contact.created': steps((t) => person(t, 'buyer')),
  'contact.updated': steps(contactChanged),
  'activity.created': steps(activity),
  'task.created': steps(task),
  'task.done': steps(taskDone),
  'booking.requested': steps(requested),
  'booking.confirmed': steps(confirmed),
  'booking.paid': steps(bookingStep('mark_paid')),
  'booking.cancelled': steps(bookingStep('cancel')),
  'lease.created': steps((t) => draftLease(t)),
  'lease.activated': steps((t) => activeLease(t)),
  'lease.notice_given': steps(noticeGiven),
  'lease.ended': steps(ended),
  'lease.updated': steps(leaseChanged),
  'rent_payment.received': steps((t) => receivedPayment(t)),
  'rent_payment.bounced': steps((t) => bouncedPayment(t)),
  'job.scheduled': steps(scheduled),
  'job.done': steps(done),
  'job.cancelled': steps(async (t) => cancelJob(scopeOf(t), await job(t), { reason: 'A test event.' })),
  'job.approval_requested': steps(approvalAsked),
  'job.approval_answered': steps(async (t) => recordApproval(scopeOf(t), await approvalAsked(t), { decision: 'approved' })),
  'job_charge.booked': steps(charged),
  'job_charge.cancelled': steps(async (t) => changeCharge(scopeOf(t), await charged(t), { status: 'cancelled' })),
  'deal.stage_changed': steps(dealMoved('open')),
  'deal.won': steps(dealMoved('won')),
  'deal.lost': steps(dealMoved('lost')),
  'viewing.planned': steps(viewing),
  'viewing.updated': steps(viewingChanged()),
  'viewing.done': steps(viewingChanged('done')),
  'viewing.cancelled': steps(viewingChanged('cancelled')),
  'viewing.missed': steps(viewingChanged('missed')),
  'listing.rates_changed': steps(rates),
  'saved_search.created': steps(savedSearch),
  'saved_search.confirmed': steps(searchStepped('active')),
  'saved_search.stopped': steps(searchStepped('stopped')),
} satisfies Partial<TriggerTable>;

/** The keys that two of `families` share (never when each type is defined once). */
type Shared<F extends readonly object[]> = F extends readonly [infer A, ...infer R extends readonly object[]]
  ? (keyof A & { [K in keyof R]: keyof R[K] }[number]) | Shared<R>
  : never;
type Families = [typeof baseTriggers, typeof billingTriggers, typeof scheduledTriggers, typeof stayTriggers];
/** Each type is defined by one family only: a type two families define is a type error here, naming it. */
const definedOnce: Record<Shared<Families> & EventType, never> = {};
void definedOnce;

/** The table: every type of the catalogue (typed exhaustively), each defined by exactly one family. */
export const eventTriggers: TriggerTable = { ...baseTriggers, ...billingTriggers, ...scheduledTriggers, ...stayTriggers };

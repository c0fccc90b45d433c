import { addDays, todayIn } from '../lib/dates';
import type { TriggerContext, TriggerFixture, TriggerTable } from '../lib/event-triggers';
import { matchOrCreateContact } from '../lib/people';
import { quoteOf, stayFacts } from '../lib/stay/quote';
import { stale, type WriteScope, writeOnce } from '../lib/write';
import type { ListingType } from '../schema/catalogue/db';
import { demoCatalogueOn } from './catalogue/demo';
import { importCatalogue } from './catalogue/content';
import { addActivity } from './crm/activities';
import { changeContact } from './crm/contacts';
import { changeLead } from './crm/lead-changes';
import { addMember } from './crm/members';
import { recordLead } from './forms/lead-record';
import { parseSearch, saveSearch, stepSearch } from './forms/saved-searches';
import { addTask, changeTask } from './crm/tasks';
import { endLease } from './leases/end';
import { activateLease, changeLease } from './leases/lease-changes';
import { createLease } from './leases/leases';
import { giveNotice } from './leases/notices';
import { changePayment } from './leases/payments';
import { addMonths } from './leases/term';
import { addCharge, changeCharge } from './maintenance/charges';
import { cancelJob, completeJob, recordApproval, scheduleJob } from './maintenance/job-status';
import { addJob } from './maintenance/jobs';
import { moveDeal } from './pipelines/deal-stages';
import { addDeal } from './pipelines/deals';
import { demoPipelines } from './pipelines/demo';
import { createPipeline, listPipelines } from './pipelines/pipelines';
import { addViewing, changeViewing } from './pipelines/viewings';
import { stepBooking } from './stay/bookings';
import { holdStay } from './stay/hold';
import { writeRates } from './stay/rates';
import { billingTriggers } from './triggers-billing';
import { scheduledTriggers } from './triggers-scheduled';
import { stayTriggers } from './triggers-stay';

/**
 * The fixtures of `events trigger` (issue 38): for every type of the event catalogue, the steps that make the records
 * whose real operations emit it, in the trigger's transaction (lib/event-triggers.ts marks what they record). Each run
 * makes its own records, named with the run's token (a home cloned from the demo catalogue, its people), so a type can be
 * triggered again and again; the company's own records are never touched. A type no fixture makes here says why.
 */

const admin = 'admin' as const;
const scopeOf = (t: TriggerContext): WriteScope => ({ db: t.db, company: t.company, now: t.now, causedBy: admin });
const today = (t: TriggerContext) => todayIn(t.company.time_zone, t.now);
const written = <T>(result: T | typeof stale): T => {
  if (result === stale) throw new Error('a fixture’s write was stale inside its own transaction');
  return result;
};

/** A home of `kind` cloned from the demo catalogue, its slug suffixed with the run's token; answers its slug. */
async function homeOf(t: TriggerContext, kind: ListingType): Promise<{ slug: string; id: string }> {
  const doc = demoCatalogueOn(today(t));
  const source = doc.listings.find((l) => l.listing_type === kind && l.status === 'published');
  if (!source) throw new Error(`the demo catalogue has no published ${kind}`);
  const slug = { en: `${source.slug.en}-t${t.token}`, ar: `${source.slug.ar}-t${t.token}` };
  const permit = source.permit ? { ...source.permit, number: `${source.permit.number}${t.token}`.slice(0, 50) } : source.permit;
  await importCatalogue(t.trx, t.company, { ...doc, listings: [{ ...source, slug, permit }] }, { render: null, now: t.now });
  const row = await t.trx
    .selectFrom('listings')
    .select('id')
    .where('company_id', '=', t.company.id)
    .where('slug_en', '=', slug.en)
    .executeTakeFirstOrThrow();
  return { slug: slug.en, id: row.id };
}

/** A person of the run (a fresh email, so a new contact): answers the contact's reference. */
async function person(t: TriggerContext, role: string): Promise<string> {
  const input = { name: `Test ${role} ${t.token}`, email: `${role}.${t.token}@example.com`, roles: [role], language: 'en' };
  return (await matchOrCreateContact(t.trx, t.company, input, admin)).contact.reference;
}

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
async function lead(t: TriggerContext): Promise<string> {
  const fields = { name: `Test enquirer ${t.token}`, email: `enquirer.${t.token}@example.com`, message: 'A test event.' };
  const origin = { rule: 'server', channel: 'form', source: 'api', sourceId: null, referral: null, occurredAt: t.now } as const;
  return (await recordLead(t.db, t.company, { ...fields, detailsJwe: null, consent: null }, origin, admin, t.now)).reference;
}
async function leadChanged(t: TriggerContext, change: 'status' | 'assignee') {
  const reference = await lead(t);
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
  const home = (await homeOf(t, 'sale')).slug;
  const time = new Date(t.now.getTime() + 3 * 86_400_000).toISOString();
  return written(await addViewing(scopeOf(t), { deal: reference, home, time })).row.reference;
}
const viewingChanged = (status?: 'done' | 'cancelled' | 'missed') => async (t: TriggerContext) => {
  const reference = await viewing(t);
  const time = new Date(t.now.getTime() + 4 * 86_400_000).toISOString();
  await changeViewing(scopeOf(t), reference, status ? { status } : { time });
};

// A visitor's saved search (as POST /saved-searches), then their link's steps.
async function savedSearch(t: TriggerContext): Promise<string> {
  const input = { search: parseSearch('type=sale'), email: `visitor.${t.token}@example.com`, language: 'en' };
  return (
    await saveSearch(t.db, t.company, t.keyring, { ...input, consentVersion: 'trigger', consentAddress: null }, 'website', t.now)
  ).id;
}
const searchStepped = (to: 'active' | 'stopped') => async (t: TriggerContext) => {
  await stepSearch(t.db, t.company.id, await savedSearch(t), to, { causedBy: 'website', reason: 'visitor' }, t.now);
};

// A holiday home's nightly price for a week a month ahead, as staff set it.
async function rates(t: TriggerContext) {
  const slug = (await homeOf(t, 'holiday_home')).slug;
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

// Leases: a draft of a year from this month on a cloned home, paid by 4 cheques.
async function draftLease(t: TriggerContext): Promise<string> {
  const start = `${today(t).slice(0, 8)}01`;
  const cheques = [0, 3, 6, 9].map((months, n) => ({
    due_on: addMonths(start, months),
    amount: '25000.00',
    cheque: { number: `${t.token.slice(0, 6)}${n}`, bank: 'Test Bank' },
  }));
  const created = await createLease(scopeOf(t), {
    home: (await homeOf(t, 'lease')).slug,
    renter: await person(t, 'tenant'),
    landlord: await person(t, 'landlord'),
    term: { start, end: addDays(addMonths(start, 12), -1) },
    rent: { amount: '100000.00', period: 'year' },
    deposit: '5000.00',
    schedule: { rows: cheques },
  });
  return created.row.reference;
}
async function activeLease(t: TriggerContext): Promise<string> {
  const reference = await draftLease(t);
  written(await writeOnce(() => activateLease(scopeOf(t), reference)));
  return reference;
}
async function firstPayment(t: TriggerContext, reference: string): Promise<string> {
  const row = await t.trx
    .selectFrom('rent_payments')
    .innerJoin('leases', 'leases.id', 'rent_payments.lease_id')
    .select('rent_payments.id')
    .where('leases.company_id', '=', t.company.id)
    .where('leases.reference', '=', reference)
    .orderBy('rent_payments.due_on')
    .executeTakeFirstOrThrow();
  return row.id;
}
async function leaseChanged(t: TriggerContext) {
  const reference = await draftLease(t);
  written(await writeOnce(() => changeLease(scopeOf(t), reference, { notice_days: 60 })));
}
async function received(t: TriggerContext): Promise<string> {
  const payment = await firstPayment(t, await activeLease(t));
  await writeOnce(() => changePayment(scopeOf(t), payment, { status: 'received' }));
  return payment;
}
async function bounced(t: TriggerContext) {
  const payment = await received(t);
  await writeOnce(() => changePayment(scopeOf(t), payment, { status: 'bounced' }));
}
async function noticeGiven(t: TriggerContext) {
  const reference = await activeLease(t);
  await writeOnce(() => giveNotice(scopeOf(t), reference, { given_on: today(t), by: 'renter', intent: 'vacate' }));
}
async function ended(t: TriggerContext) {
  const reference = await activeLease(t);
  await writeOnce(() => endLease(scopeOf(t), reference, { ended_on: today(t), deposit: { outcome: 'returned' } }));
}

// Stays: a request for 3 nights a month ahead at a cloned holiday home, then staff's steps.
async function requested(t: TriggerContext): Promise<string> {
  const slug = (await homeOf(t, 'holiday_home')).slug;
  const checkIn = addDays(today(t), 30);
  const stay = { checkIn, checkOut: addDays(checkIn, 3), guests: 2 };
  const facts = await stayFacts(t.trx, t.company, slug, stay, t.now);
  const quote = quoteOf(t.company, facts, stay, t.now);
  const guest = { ...stay, name: `Test guest ${t.token}`, email: `guest.${t.token}@example.com`, language: 'en' };
  const held = await holdStay(
    t.trx,
    t.company,
    facts,
    quote,
    { ...guest, consentVersion: 'trigger', consentAddress: null },
    'website',
    t.now,
  );
  if (!held) throw new Error('the test stay could not be held');
  return held.booking.reference;
}
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
    home: (await homeOf(t, 'lease')).slug,
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

const steps = (run: (t: TriggerContext) => Promise<unknown>): TriggerFixture => ({ steps: async (t) => void (await run(t)) });
const notYet = (why: string): TriggerFixture => ({ unavailable: why });
const noFixture = notYet('no fixture makes it yet (docs/api-reference.md, "Test events"); it is emitted by its real flow only.');
const scheduledWork = notYet(
  'it is made only by scheduled work, which runs over every company at the clock’s time: run inside a trigger it would announce other companies’ records too.',
);
const provider = notYet(
  'it is made only when the payment provider confirms (its signed webhook, read back from the provider): no stand-in provider is reached from here.',
);
const calendarFeed = notYet('it is made only by syncing an imported calendar fetched from outside (issue 24).');
const ownTransaction = notYet(
  'its operation runs in a transaction of its own (a retried write, or a page’s form), and a trigger runs its fixture in one transaction: no fixture makes it yet.',
);

const baseTriggers: TriggerTable = {
  'lead.created': steps(lead),
  'lead.assigned': steps((t) => leadChanged(t, 'assignee')),
  'lead.status_changed': steps((t) => leadChanged(t, 'status')),
  'lead.escalated': scheduledWork,
  'contact.created': steps((t) => person(t, 'buyer')),
  'contact.updated': steps(contactChanged),
  'activity.created': steps(activity),
  'task.created': steps(task),
  'task.done': steps(taskDone),
  'booking.requested': steps(requested),
  'booking.confirmed': steps(confirmed),
  'booking.paid': steps(bookingStep('mark_paid')),
  'booking.cancelled': steps(bookingStep('cancel')),
  'booking.balance_due': noFixture,
  'booking.refunded': provider,
  'booking.changed': ownTransaction,
  'booking.guests_registered': ownTransaction,
  'lease.created': steps(draftLease),
  'lease.activated': steps(activeLease),
  'lease.notice_given': steps(noticeGiven),
  'lease.ended': steps(ended),
  'lease.updated': steps(leaseChanged),
  'rent_payment.received': steps(received),
  'rent_payment.bounced': steps(bounced),
  'rent_payment.overdue': scheduledWork,
  'rent_mandate.created': noFixture,
  'rent_mandate.activated': noFixture,
  'rent_mandate.rejected': noFixture,
  'rent_mandate.cancelled': noFixture,
  'rent_mandate.expired': noFixture,
  'job.scheduled': steps(scheduled),
  'job.done': steps(done),
  'job.cancelled': steps(async (t) => cancelJob(scopeOf(t), await job(t), { reason: 'A test event.' })),
  'job.approval_requested': steps(approvalAsked),
  'job.approval_answered': steps(async (t) => recordApproval(scopeOf(t), await approvalAsked(t), { decision: 'approved' })),
  'job_charge.booked': steps(charged),
  'job_charge.cancelled': steps(async (t) => changeCharge(scopeOf(t), await charged(t), { status: 'cancelled' })),
  'owner_statement.ready': scheduledWork,
  'invoice.issued': noFixture,
  'credit_note.issued': noFixture,
  'invoice.einvoice_due': scheduledWork,
  'deal.stage_changed': steps(dealMoved('open')),
  'deal.won': steps(dealMoved('won')),
  'deal.lost': steps(dealMoved('lost')),
  'viewing.planned': steps(viewing),
  'viewing.updated': steps(viewingChanged()),
  'viewing.done': steps(viewingChanged('done')),
  'viewing.cancelled': steps(viewingChanged('cancelled')),
  'viewing.missed': steps(viewingChanged('missed')),
  'listing.permit_expiring': scheduledWork,
  'listing.permit_expired': scheduledWork,
  'listing.rates_changed': steps(rates),
  'listing.created': ownTransaction,
  'listing.updated': ownTransaction,
  'listing.published': ownTransaction,
  'listing.withdrawn': ownTransaction,
  'payment.succeeded': provider,
  'payment.failed': provider,
  'payment.refunded': provider,
  'calendar_import.failed': calendarFeed,
  'calendar.conflict': calendarFeed,
  'saved_search.created': steps(savedSearch),
  'saved_search.confirmed': steps(searchStepped('active')),
  'saved_search.matched': scheduledWork,
  'saved_search.stopped': steps(searchStepped('stopped')),
  'webhook_endpoint.disabled': notYet(
    'it is made only when deliveries to an endpoint fail for 3 days or are answered 410 Gone; a fixture would disable a real endpoint.',
  ),
};

/** The table: the fixtures of each family laid over the base (a type made by a family's file replaces its entry here). */
export const eventTriggers: TriggerTable = { ...baseTriggers, ...billingTriggers, ...scheduledTriggers, ...stayTriggers };

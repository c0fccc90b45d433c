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
import { addTask, changeTask } from './crm/tasks';
import { endLease } from './leases/end';
import { activateLease } from './leases/lease-changes';
import { createLease } from './leases/leases';
import { giveNotice } from './leases/notices';
import { changePayment } from './leases/payments';
import { addMonths } from './leases/term';
import { addCharge, changeCharge } from './maintenance/charges';
import { cancelJob, completeJob, recordApproval, scheduleJob } from './maintenance/job-status';
import { addJob } from './maintenance/jobs';
import { stepBooking } from './stay/bookings';
import { holdStay } from './stay/hold';

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
async function home(t: TriggerContext, kind: ListingType): Promise<{ slug: string; id: string }> {
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

// Leases: a draft of a year from this month on a cloned home, paid by 4 cheques.
async function draftLease(t: TriggerContext): Promise<string> {
  const start = `${today(t).slice(0, 8)}01`;
  const cheques = [0, 3, 6, 9].map((months, n) => ({
    due_on: addMonths(start, months),
    amount: '25000.00',
    cheque: { number: `${t.token.slice(0, 6)}${n}`, bank: 'Test Bank' },
  }));
  const created = await createLease(scopeOf(t), {
    home: (await home(t, 'lease')).slug,
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
  const slug = (await home(t, 'holiday_home')).slug;
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
    home: (await home(t, 'lease')).slug,
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
async function charged(t: TriggerContext): Promise<string> {
  const reference = await done(t);
  return written(await addCharge(scopeOf(t), { job: reference, cost: '100.00', description: 'A test event’s charge' })).row.id;
}

const steps = (run: (t: TriggerContext) => Promise<unknown>): TriggerFixture => ({ steps: async (t) => void (await run(t)) });
const notYet = (why: string): TriggerFixture => ({ unavailable: why });
const noFixture = notYet('no fixture makes it yet (docs/api-reference.md, "Test events"); it is emitted by its real flow only.');

export const eventTriggers: TriggerTable = {
  'lead.created': noFixture,
  'lead.assigned': noFixture,
  'lead.status_changed': noFixture,
  'lead.escalated': noFixture,
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
  'booking.refunded': noFixture,
  'lease.created': steps(draftLease),
  'lease.activated': steps(activeLease),
  'lease.notice_given': steps(noticeGiven),
  'lease.ended': steps(ended),
  'lease.updated': noFixture,
  'rent_payment.received': steps(received),
  'rent_payment.bounced': steps(bounced),
  'rent_payment.overdue': noFixture,
  'rent_mandate.created': noFixture,
  'rent_mandate.activated': noFixture,
  'rent_mandate.rejected': noFixture,
  'rent_mandate.cancelled': noFixture,
  'rent_mandate.expired': noFixture,
  'job.scheduled': steps(scheduled),
  'job.done': steps(done),
  'job.cancelled': steps(async (t) => cancelJob(scopeOf(t), await job(t), { reason: 'A test event.' })),
  'job.approval_requested': steps(async (t) =>
    recordApproval(scopeOf(t), await job(t, '5400.00'), { decision: 'requested', note: 'A test event.' }),
  ),
  'job.approval_answered': noFixture,
  'job_charge.booked': steps(charged),
  'job_charge.cancelled': steps(async (t) => changeCharge(scopeOf(t), await charged(t), { status: 'cancelled' })),
  'owner_statement.ready': noFixture,
  'invoice.issued': noFixture,
  'credit_note.issued': noFixture,
  'invoice.einvoice_due': noFixture,
  'deal.stage_changed': noFixture,
  'deal.won': noFixture,
  'deal.lost': noFixture,
  'viewing.planned': noFixture,
  'viewing.updated': noFixture,
  'viewing.done': noFixture,
  'viewing.cancelled': noFixture,
  'viewing.missed': noFixture,
  'listing.permit_expiring': noFixture,
  'listing.permit_expired': noFixture,
  'listing.rates_changed': noFixture,
  'payment.succeeded': noFixture,
  'payment.failed': noFixture,
  'payment.refunded': noFixture,
  'calendar_import.failed': noFixture,
  'calendar.conflict': noFixture,
  'saved_search.created': noFixture,
  'saved_search.confirmed': noFixture,
  'saved_search.matched': noFixture,
  'saved_search.stopped': noFixture,
  'webhook_endpoint.disabled': noFixture,
};

import Big from 'big.js';
import { addDays, addMonths, todayIn, zonedInstant } from '../../lib/dates';
import type { Db, Trx } from '../../lib/db/index';
import type { CausedBy } from '../../lib/events';
import { formatAmount } from '../../lib/money';
import { matchOrCreateContact, type PersonInput } from '../../lib/people';
import { type WriteScope, writeOnce } from '../../lib/write';
import type { LeaseInputValue } from '../../schema/leases/leases';
import type { Company } from '../../schema/platform/db';
import { activateLease } from './lease-changes';
import { endLease } from './end';
import { createLease } from './leases';
import { giveNotice } from './notices';
import { addReplacement, changePayment } from './payments';
import { renewLease } from './renew';

/**
 * The leases of the demo company (`npm start`), written through the group's own operations with dates relative to
 * `now`, so the demo looks current: a draft of 4 equal payments; an active lease of an office (commercial rent: its
 * receipts issue tax invoices, its bounce a credit note) paid by 12 post-dated cheques, those already due received, one
 * bounced after its receipt and replaced by another cheque; an active lease on which the
 * renter gave notice to vacate; an ended lease (deposit returned with deductions) and its renewal draft.
 * Receipts are booked with the instant they happened (10:00 on the due day), as a clerk entering them then would.
 */
const causedBy: CausedBy = 'system';

type Demo = { trx: Trx; company: Company; now: Date; today: string };

const person = (name: string, email: string, phone: string, roles: string[], language = 'en'): PersonInput => ({
  name,
  email,
  phone,
  roles,
  language,
});

/** The scope of a write of the demo at `now` (the demo's transaction: each write's statements run in it). */
const scopeAt = (demo: Demo, now = demo.now): WriteScope => ({
  db: demo.trx as unknown as Db,
  company: demo.company,
  now,
  causedBy,
});

async function contact(demo: Demo, input: PersonInput): Promise<string> {
  return (await matchOrCreateContact(demo.trx, demo.company, input, causedBy)).contact.reference;
}

/** 10:00 on `day` in the company's time zone: when a payment of that day was entered. */
const morningOf = (demo: Demo, day: string) => zonedInstant(day, '10:00', demo.company.time_zone);

/** A year from `start`: its last day. */
const yearFrom = (start: string) => ({ start, end: addDays(addMonths(start, 12), -1) });

/** `count` cheques from `start`, one every `months`, numbered from `first`, all of `amount`. */
function cheques(start: string, count: number, months: number, amount: string, first: number, bank: string) {
  return Array.from({ length: count }, (_, i) => ({
    due_on: addMonths(start, i * months),
    amount,
    cheque: { number: String(first + i).padStart(6, '0'), bank },
  }));
}

async function addLease(demo: Demo, input: LeaseInputValue) {
  return (await createLease(scopeAt(demo), input)).row.reference;
}

/** The lease's payments, in due order. */
function paymentsOf(demo: Demo, reference: string) {
  return demo.trx
    .selectFrom('rent_payments')
    .innerJoin('leases', 'leases.id', 'rent_payments.lease_id')
    .select((eb) => ['rent_payments.id', eb.cast<string>('rent_payments.due_on', 'text').as('due_on')])
    .where('leases.reference', '=', reference)
    .orderBy('rent_payments.due_on')
    .execute();
}

/** Receives each payment of the lease due before today, on its due day; `except` stay as they are. */
async function receiveDue(demo: Demo, reference: string, except: string[] = []) {
  for (const payment of await paymentsOf(demo, reference)) {
    if (payment.due_on >= demo.today || except.includes(payment.id)) continue;
    const at = scopeAt(demo, morningOf(demo, payment.due_on));
    await writeOnce(() => changePayment(at, payment.id, { status: 'received' }));
  }
}

/** Activates a draft the day before its term starts. */
async function activate(demo: Demo, reference: string, start: string) {
  await writeOnce(() => activateLease(scopeAt(demo, morningOf(demo, addDays(start, -1))), reference));
}

/** A lease of a year from `start` at `yearly` rent (deposit 5 %, fee 5 %) paid by `count` equal cheques, activated. */
async function activeChequeLease(
  demo: Demo,
  [home, renter, landlord]: [string, string, string],
  plan: { start: string; yearly: string; count: number; first: number; bank: string },
  more: Partial<LeaseInputValue>,
) {
  const amount = formatAmount(new Big(plan.yearly).div(plan.count), demo.company.currency);
  const reference = await addLease(demo, {
    home,
    renter,
    landlord,
    term: yearFrom(plan.start),
    rent: { amount: plan.yearly, period: 'year' },
    deposit: formatAmount(new Big(plan.yearly).times('0.05'), demo.company.currency),
    schedule: { rows: cheques(plan.start, plan.count, 12 / plan.count, amount, plan.first, plan.bank) },
    fee: { kind: 'percent', value: '5' },
    ...more,
  });
  await activate(demo, reference, plan.start);
  return reference;
}

export async function seedLeasesDemo(trx: Trx, company: Company, now: Date): Promise<void> {
  const demo: Demo = { trx, company, now, today: todayIn(company.time_zone, now) };
  const thisMonth = `${demo.today.slice(0, 8)}01`;
  const owner = await contact(demo, person('Khalid Al Mansouri', 'khalid.almansouri@example.ae', '+971501234501', ['landlord']));
  // Registered for VAT (a test TRN): the company bills his commercial rent as his disclosed agent, naming him.
  await demo.trx
    .updateTable('contacts')
    .set({ trn: '100300400500003' })
    .where('company_id', '=', company.id)
    .where('reference', '=', owner)
    .execute();
  const ownerTwo = await contact(demo, person('Emma Brown', 'emma.brown@example.co.uk', '+447700900123', ['landlord']));

  // A draft for next month: a year at 210,000 a year in 4 equal payments.
  await addLease(demo, {
    home: 'burj-vista-2br-fountain-view',
    renter: await contact(demo, person('Olivia Schmidt', 'olivia.schmidt@example.de', '+971502345602', ['tenant'], 'de')),
    landlord: owner,
    term: yearFrom(addMonths(thisMonth, 1)),
    rent: { amount: '210000.00', period: 'year' },
    deposit: '10500.00',
    schedule: { payments: 4 },
    fee: { kind: 'percent', value: '5' },
    renewal_terms: 'Renewable for a year at the rent the landlord proposes 90 days before the end.',
    notes: 'Waiting for the renter’s Emirates ID before activation.',
    external: { source: 'yardi', id: 'demo-lease-1001' },
  });

  // An office (commercial rent, standard-rated: each receipt issues a tax invoice) let for six months, paid by 12
  // monthly post-dated cheques; the third bounced after its receipt (its invoice credited by a credit note).
  const cheques12Start = addMonths(thisMonth, -6);
  const omar = await contact(demo, person('Omar Haddad', 'omar.haddad@example.ae', '+971503456703', ['tenant'], 'ar'));
  const monthlyPlan = { start: cheques12Start, yearly: '120000.00', count: 12, first: 100201, bank: 'Emirates NBD' };
  const monthly = await activeChequeLease(demo, ['business-bay-fitted-office', omar, owner], monthlyPlan, {
    tax_category: 'standard',
    registration: 'EJ-0112233445',
    external: { source: 'yardi', id: 'demo-lease-1002' },
  });
  const [, , bounced] = await paymentsOf(demo, monthly);
  if (!bounced) throw new Error('the demo lease has no third cheque');
  const bouncedDue = bounced.due_on;
  await writeOnce(() => changePayment(scopeAt(demo, morningOf(demo, bouncedDue)), bounced.id, { status: 'received' }));
  const returnedOn = addDays(bouncedDue, 3);
  await writeOnce(() => changePayment(scopeAt(demo, morningOf(demo, returnedOn)), bounced.id, { status: 'bounced' }));
  await addReplacement(scopeAt(demo), {
    replaces: bounced.id,
    due_on: addDays(returnedOn, 7),
    amount: '10000.00',
    cheque: { number: '000388', bank: 'Mashreq' },
    notes: 'Replaces cheque 100203 (Emirates NBD), returned for insufficient funds.',
  });
  await receiveDue(demo, monthly, [bounced.id]);

  // Active for ten months, four quarterly cheques; the renter gave notice to vacate at the end (late: the contract
  // asks for 90 days, so the lease carries the notice warnings).
  const quarterlyStart = addMonths(thisMonth, -10);
  const priya = await contact(demo, person('Priya Sharma', 'priya.sharma@example.in', '+971504567804', ['tenant']));
  const bank = 'Abu Dhabi Commercial Bank';
  const quarterly = { start: quarterlyStart, yearly: '175000.00', count: 4, first: 500101, bank };
  const fixedFee = { kind: 'fixed' as const, value: '1500.00' };
  const leaving = await activeChequeLease(demo, ['al-reem-3br-sea-view', priya, ownerTwo], quarterly, {
    registration: 'TAW-2026-778812',
    notice_days: 90,
    fee: fixedFee,
  });
  await receiveDue(demo, leaving);
  const noticeOn = addDays(demo.today, -5);
  await writeOnce(() =>
    giveNotice(scopeAt(demo), leaving, {
      given_on: noticeOn,
      by: 'renter',
      intent: 'vacate',
      text: 'Relocating to Abu Dhabi island; leaving at the end of the term.',
    }),
  );

  // A year that ended last month: all four cheques received, a renewal asked for, the deposit returned with deductions,
  // and the renewal draft at the rent the renter's notice proposed.
  const endedStart = addMonths(thisMonth, -12);
  const daniel = await contact(demo, person('Daniel Novak', 'daniel.novak@example.cz', '+971505678905', ['tenant']));
  const endedPlan = { start: endedStart, yearly: '98000.00', count: 4, first: 700301, bank: 'Dubai Islamic Bank' };
  const ended = await activeChequeLease(demo, ['executive-towers-1br', daniel, ownerTwo], endedPlan, {
    registration: 'EJ-0109988776',
  });
  await receiveDue(demo, ended);
  const endedOn = addDays(thisMonth, -1);
  const renewalAsked = addMonths(endedStart, 8);
  await writeOnce(() =>
    giveNotice(scopeAt(demo, morningOf(demo, renewalAsked)), ended, {
      given_on: renewalAsked,
      by: 'renter',
      intent: 'renew',
      proposed_rent: '102000.00',
      text: 'Happy to stay another year.',
    }),
  );
  await writeOnce(() =>
    endLease(scopeAt(demo), ended, {
      ended_on: endedOn,
      deposit: { outcome: 'returned_with_deductions', deductions: '1200.00', reason: 'Repainting the living room.' },
    }),
  );
  await renewLease(scopeAt(demo), ended, { notes: 'Renewal at the rent the renter proposed; to sign.' });
}

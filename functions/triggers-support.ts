import { addDays, addMonths, todayIn } from '../lib/dates';
import type { TriggerContext, TriggerFixture } from '../lib/event-triggers';
import { matchOrCreateContact } from '../lib/people';
import { quoteOf, stayFacts } from '../lib/stay/quote';
import { stale, type WriteScope, writeOnce } from '../lib/write';
import type { ListingType } from '../schema/catalogue/db';
import type { HomeTermsValue } from '../schema/common/homes';
import { importCatalogue } from './catalogue/content';
import { demoCatalogueOn } from './catalogue/demo';
import { changeContact } from './crm/contacts';
import { recordLead } from './forms/lead-record';
import { parseSearch, saveSearch, stepSearch } from './forms/saved-searches';
import { activateLease } from './leases/lease-changes';
import { createLease } from './leases/leases';
import { changePayment } from './leases/payments';
import { holdStay } from './stay/hold';

/**
 * What every family of `events trigger`'s fixtures (issue 38; functions/triggers.ts and functions/triggers-<family>.ts)
 * builds on: the run's scope, a home cloned from the demo catalogue, its people, an enquiry, a lease and its first
 * payment, a held stay, a visitor's search. Each record is named with the run's token. This file imports no fixture file.
 */

export const admin = 'admin' as const;
export const scopeOf = (t: TriggerContext): WriteScope => ({ db: t.db, company: t.company, now: t.now, causedBy: admin });
export const today = (t: TriggerContext, at: Date = t.now) => todayIn(t.company.time_zone, at);
export const written = <T>(result: T | typeof stale): T => {
  if (result === stale) throw new Error('a fixture’s write was stale inside its own transaction');
  return result;
};
/** A fixture that runs `run` (its answer dropped). */
export const steps = (run: (t: TriggerContext) => Promise<unknown>): TriggerFixture => ({
  steps: async (t) => void (await run(t)),
});

export type HomeOptions = {
  /** When it is imported (the run's time unless said). */
  at?: Date;
  /** Its permit's last day (a source with a permit is taken). */
  permitEndsOn?: string;
  /** A holiday home's booking terms (left out: the database's defaults). */
  booking?: HomeTermsValue;
};

/**
 * A home of `kind` cloned from the demo catalogue, its slug (and permit number) suffixed with the run's token, imported
 * as the options say. Answers its slug and id.
 */
export async function importHome(
  t: TriggerContext,
  kind: ListingType,
  options: HomeOptions = {},
): Promise<{ slug: string; id: string }> {
  const at = options.at ?? t.now;
  const doc = demoCatalogueOn(today(t, at));
  const source = doc.listings.find(
    (l) => l.listing_type === kind && l.status === 'published' && (!options.permitEndsOn || l.permit),
  );
  if (!source) throw new Error(`the demo catalogue has no published ${kind}${options.permitEndsOn ? ' with a permit' : ''}`);
  const slug = { en: `${source.slug.en}-t${t.token}`, ar: `${source.slug.ar}-t${t.token}` };
  const permit = source.permit && {
    ...source.permit,
    number: `${source.permit.number}${t.token}`.slice(0, 50),
    ...(options.permitEndsOn ? { expires_on: options.permitEndsOn } : {}),
  };
  const listing = { ...source, slug, permit, ...(options.booking ? { booking: options.booking } : {}) };
  await importCatalogue(t.trx, t.company, { ...doc, listings: [listing] }, { render: null, now: at });
  const row = await t.trx
    .selectFrom('listings')
    .select('id')
    .where('company_id', '=', t.company.id)
    .where('slug_en', '=', slug.en)
    .executeTakeFirstOrThrow();
  return { slug: slug.en, id: row.id };
}

/** A person of the run (a fresh email, so a new contact): answers the contact's reference. */
export async function person(t: TriggerContext, role: string): Promise<string> {
  const input = { name: `Test ${role} ${t.token}`, email: `${role}.${t.token}@example.com`, roles: [role], language: 'en' };
  return (await matchOrCreateContact(t.trx, t.company, input, admin)).contact.reference;
}

/** An enquiry from the company's server (as POST /leads with a server key): its id and reference. */
export async function enquiry(t: TriggerContext): Promise<{ id: string; reference: string }> {
  const fields = { name: `Test enquirer ${t.token}`, email: `enquirer.${t.token}@example.com`, message: 'A test event.' };
  const origin = { rule: 'server', channel: 'form', source: 'api', sourceId: null, referral: null, occurredAt: t.now } as const;
  const lead = await recordLead(t.db, t.company, { ...fields, detailsJwe: null, consent: null }, origin, admin, t.now);
  return { id: lead.id, reference: lead.reference };
}

/** A TRN of the published shape (15 digits, 100…03), for a registered landlord. */
const landlordTrn = '100987654300003';

export type LeaseOptions = {
  /** Its first day (default: the first of this month); its 4 cheques fall due from it, 3 months apart. */
  start?: string;
  /**
   * Its rent standard-rated (as a commercial lease) and its landlord registered for VAT, so a receipt takes a tax
   * invoice when the company is registered (lib/rent-invoices.ts).
   */
  taxable?: boolean;
};

/** A draft lease of a year on a cloned home, paid by 4 cheques: its id and reference. */
export async function draftLease(t: TriggerContext, options: LeaseOptions = {}): Promise<{ id: string; reference: string }> {
  const start = options.start ?? `${today(t).slice(0, 8)}01`;
  const cheques = [0, 3, 6, 9].map((months, n) => ({
    due_on: addMonths(start, months),
    amount: '25000.00',
    cheque: { number: `${t.token.slice(0, 6)}${n}`, bank: 'Test Bank' },
  }));
  const landlord = await person(t, 'landlord');
  if (options.taxable) written(await changeContact(scopeOf(t), landlord, { trn: landlordTrn }));
  const created = await createLease(scopeOf(t), {
    home: (await importHome(t, 'lease')).slug,
    renter: await person(t, 'tenant'),
    landlord,
    ...(options.taxable ? { tax_category: 'standard' as const } : {}),
    term: { start, end: addDays(addMonths(start, 12), -1) },
    rent: { amount: '100000.00', period: 'year' },
    deposit: '5000.00',
    schedule: { rows: cheques },
  });
  return { id: created.row.id, reference: created.row.reference };
}

/** {@link draftLease}, activated. */
export async function activeLease(t: TriggerContext, options: LeaseOptions = {}): Promise<{ id: string; reference: string }> {
  const lease = await draftLease(t, options);
  written(await writeOnce(() => activateLease(scopeOf(t), lease.reference)));
  return lease;
}

/** The first payment of an active {@link draftLease}, recorded received by staff: its id. */
export async function receivedPayment(t: TriggerContext, options: LeaseOptions = {}): Promise<string> {
  const lease = await activeLease(t, options);
  const { id } = await t.trx
    .selectFrom('rent_payments')
    .select('id')
    .where('lease_id', '=', lease.id)
    .orderBy('due_on')
    .executeTakeFirstOrThrow();
  written(await writeOnce(() => changePayment(scopeOf(t), id, { status: 'received' })));
  return id;
}

/** {@link receivedPayment}, then bounced. */
export async function bouncedPayment(t: TriggerContext, options: LeaseOptions = {}): Promise<void> {
  const payment = await receivedPayment(t, options);
  written(await writeOnce(() => changePayment(scopeOf(t), payment, { status: 'bounced' })));
}

/**
 * A stay of 3 nights for 2, `daysAhead` days on (a month unless said), held for a guest of the run as a visitor's
 * request holds it (as POST /stays, `booking.requested`), at `home` (a new holiday home of the run unless given): its
 * hold, nights and home.
 */
export async function heldStay(t: TriggerContext, options: { home?: { slug: string; id: string }; daysAhead?: number } = {}) {
  const home = options.home ?? (await importHome(t, 'holiday_home'));
  const checkIn = addDays(today(t), options.daysAhead ?? 30);
  const stay = { checkIn, checkOut: addDays(checkIn, 3), guests: 2 };
  const facts = await stayFacts(t.trx, t.company, home.slug, stay, t.now);
  const quote = quoteOf(t.company, facts, stay, t.now);
  const guest = { ...stay, name: `Test guest ${t.token}`, email: `guest.${t.token}@example.com`, language: 'en' };
  const consent = { consentVersion: 'trigger', consentAddress: null };
  const held = await holdStay(t.trx, t.company, facts, quote, { ...guest, ...consent }, 'website', t.now);
  if (!held) throw new Error('the test stay could not be held');
  return { ...held, ...stay, home };
}

/** A visitor's saved search for homes for sale (as POST /saved-searches): its id. */
export async function savedSearch(t: TriggerContext): Promise<string> {
  const input = { search: parseSearch('type=sale'), email: `visitor.${t.token}@example.com`, language: 'en' };
  const consent = { consentVersion: 'trigger', consentAddress: null };
  return (await saveSearch(t.db, t.company, t.keyring, { ...input, ...consent }, 'website', t.now)).id;
}

/** A saved search's link followed to `to`, as the visitor's link steps it. */
export async function stepSavedSearch(t: TriggerContext, id: string, to: 'active' | 'stopped'): Promise<void> {
  await stepSearch(t.db, t.company.id, id, to, { causedBy: 'website', reason: 'visitor' }, t.now);
}

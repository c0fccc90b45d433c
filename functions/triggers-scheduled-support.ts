import { addDays, todayIn } from '../lib/dates';
import type { TriggerContext } from '../lib/event-triggers';
import { matchOrCreateContact } from '../lib/people';
import { quoteOf, stayFacts } from '../lib/stay/quote';
import { writeOnce } from '../lib/write';
import type { ListingType } from '../schema/catalogue/db';
import { importCatalogue } from './catalogue/content';
import { demoCatalogueOn } from './catalogue/demo';
import { recordLead } from './forms/lead-record';
import { activateLease } from './leases/lease-changes';
import { createLease } from './leases/leases';
import { addMonths } from './leases/term';
import { holdStay } from './stay/hold';

/**
 * The records the scheduled, provider's and calendar's fixtures of `events trigger` start from (issue 38;
 * functions/triggers-scheduled.ts), each named with the run's token. functions/triggers.ts has its own `homeOf`, `person`
 * and lease and stay fixtures, which it may take from here (this file cannot import it: it imports the fixtures' file).
 */

const admin = 'admin' as const;
export const today = (t: TriggerContext, at: Date = t.now) => todayIn(t.company.time_zone, at);

/**
 * A home of `kind` cloned from the demo catalogue, its slug (and permit number) suffixed with the run's token, imported
 * at `at` (the run's time unless said) with its permit's last day `permitEndsOn` when given. Answers its slug and id.
 */
export async function importHome(
  t: TriggerContext,
  kind: ListingType,
  options: { at?: Date; permitEndsOn?: string } = {},
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
  await importCatalogue(t.trx, t.company, { ...doc, listings: [{ ...source, slug, permit }] }, { render: null, now: at });
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

/** An enquiry from the company's server (as POST /leads with a server key): answers its id. */
export async function enquiry(t: TriggerContext): Promise<string> {
  const fields = { name: `Test enquirer ${t.token}`, email: `enquirer.${t.token}@example.com`, message: 'A test event.' };
  const origin = { rule: 'server', channel: 'form', source: 'api', sourceId: null, referral: null, occurredAt: t.now } as const;
  return (await recordLead(t.db, t.company, { ...fields, detailsJwe: null, consent: null }, origin, admin, t.now)).id;
}

/** An active lease of a year from `start` on a cloned home, paid by 4 cheques from `start`: answers its id. */
export async function activeLeaseFrom(t: TriggerContext, start: string): Promise<string> {
  const cheques = [0, 3, 6, 9].map((months, n) => ({
    due_on: addMonths(start, months),
    amount: '25000.00',
    cheque: { number: `${t.token.slice(0, 6)}${n}`, bank: 'Test Bank' },
  }));
  const scope = { db: t.db, company: t.company, now: t.now, causedBy: admin };
  const created = await createLease(scope, {
    home: (await importHome(t, 'lease')).slug,
    renter: await person(t, 'tenant'),
    landlord: await person(t, 'landlord'),
    term: { start, end: addDays(addMonths(start, 12), -1) },
    rent: { amount: '100000.00', period: 'year' },
    deposit: '5000.00',
    schedule: { rows: cheques },
  });
  await writeOnce(() => activateLease(scope, created.row.reference));
  return created.row.id;
}

/** A stay of 3 nights `daysAhead` days on at the home, held for a guest of the run (as POST /stays): its hold and nights. */
export async function heldStay(t: TriggerContext, slug: string, daysAhead: number) {
  const checkIn = addDays(today(t), daysAhead);
  const stay = { checkIn, checkOut: addDays(checkIn, 3), guests: 2 };
  const facts = await stayFacts(t.trx, t.company, slug, stay, t.now);
  const quote = quoteOf(t.company, facts, stay, t.now);
  const guest = { ...stay, name: `Test guest ${t.token}`, email: `guest.${t.token}@example.com`, language: 'en' };
  const consent = { consentVersion: 'trigger', consentAddress: null };
  const held = await holdStay(t.trx, t.company, facts, quote, { ...guest, ...consent }, 'website', t.now);
  if (!held) throw new Error('the test stay could not be held');
  return { ...held, ...stay };
}

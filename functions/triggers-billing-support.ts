import { addDays, todayIn } from '../lib/dates';
import type { TriggerContext } from '../lib/event-triggers';
import { matchOrCreateContact } from '../lib/people';
import { stale, type WriteScope, writeOnce } from '../lib/write';
import type { ListingType } from '../schema/catalogue/db';
import { demoCatalogueOn } from './catalogue/demo';
import { importCatalogue } from './catalogue/content';
import { changeContact } from './crm/contacts';
import { activateLease } from './leases/lease-changes';
import { createLease } from './leases/leases';
import { changePayment } from './leases/payments';
import { addMonths } from './leases/term';

/**
 * What the billing family's fixtures of `events trigger` (issue 38, functions/triggers-billing.ts) build on: the run's
 * scope, a home cloned from the demo catalogue, its people, a lease and its first payment received. functions/triggers.ts
 * imports functions/triggers-billing.ts, so these cannot come from there; this file imports no fixture file, and
 * functions/triggers.ts may take its own copies from here.
 */

export const admin = 'admin' as const;
export const scopeOf = (t: TriggerContext): WriteScope => ({ db: t.db, company: t.company, now: t.now, causedBy: admin });
export const today = (t: TriggerContext) => todayIn(t.company.time_zone, t.now);
export const written = <T>(result: T | typeof stale): T => {
  if (result === stale) throw new Error('a fixture’s write was stale inside its own transaction');
  return result;
};

/** A home of `kind` cloned from the demo catalogue, its slug suffixed with the run's token; answers its slug. */
export async function homeOf(t: TriggerContext, kind: ListingType): Promise<{ slug: string; id: string }> {
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
export async function person(t: TriggerContext, role: string): Promise<string> {
  const input = { name: `Test ${role} ${t.token}`, email: `${role}.${t.token}@example.com`, roles: [role], language: 'en' };
  return (await matchOrCreateContact(t.trx, t.company, input, admin)).contact.reference;
}

/** A TRN of the published shape (15 digits, 100…03), for a registered landlord. */
const landlordTrn = '100987654300003';

/**
 * A draft lease of a year from this month on a cloned home, paid by 4 cheques: its reference. `taxable`: its rent
 * standard-rated (as a commercial lease) and its landlord registered for VAT, so a receipt takes a tax invoice when the
 * company is registered (lib/rent-invoices.ts).
 */
export async function draftLease(t: TriggerContext, taxable = false): Promise<string> {
  const start = `${today(t).slice(0, 8)}01`;
  const cheques = [0, 3, 6, 9].map((months, n) => ({
    due_on: addMonths(start, months),
    amount: '25000.00',
    cheque: { number: `${t.token.slice(0, 6)}${n}`, bank: 'Test Bank' },
  }));
  const landlord = await person(t, 'landlord');
  if (taxable) written(await changeContact(scopeOf(t), landlord, { trn: landlordTrn }));
  const created = await createLease(scopeOf(t), {
    home: (await homeOf(t, 'lease')).slug,
    renter: await person(t, 'tenant'),
    landlord,
    ...(taxable ? { tax_category: 'standard' as const } : {}),
    term: { start, end: addDays(addMonths(start, 12), -1) },
    rent: { amount: '100000.00', period: 'year' },
    deposit: '5000.00',
    schedule: { rows: cheques },
  });
  return created.row.reference;
}

/** {@link draftLease}, activated. */
export async function activeLease(t: TriggerContext, taxable = false): Promise<string> {
  const reference = await draftLease(t, taxable);
  written(await writeOnce(() => activateLease(scopeOf(t), reference)));
  return reference;
}

/** The first payment of an active {@link draftLease} (taxable), recorded received by staff: its id. */
export async function receivedPayment(t: TriggerContext): Promise<string> {
  const reference = await activeLease(t, true);
  const { id } = await t.trx
    .selectFrom('rent_payments')
    .innerJoin('leases', 'leases.id', 'rent_payments.lease_id')
    .select('rent_payments.id')
    .where('leases.company_id', '=', t.company.id)
    .where('leases.reference', '=', reference)
    .orderBy('rent_payments.due_on')
    .executeTakeFirstOrThrow();
  written(await writeOnce(() => changePayment(scopeOf(t), id, { status: 'received' })));
  return id;
}

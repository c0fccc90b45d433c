import Big from 'big.js';
import { describe, expect, it } from 'vitest';
import { setUpkeep } from '../maintenance/support';
import { step, stays } from '../stay/support';
import { invoiceSettings } from '../support/invoices';
import { checkPintAeRules, pintAeResources, validatePintAe } from '../support/pint-ae';
import { leasesOf, world } from '../support/world';
import {
  bookedHome,
  bookingJournalAccounts,
  bookingPayments,
  cancelForm,
  connectStripe,
  payForm,
  payNow,
  stayCtx,
  useBookingPaymentsWorld,
} from './booking-support';
import { deliverEvent } from './support';

/**
 * A booking's tax invoices and credit notes (issue 35; lib/payments/booking-invoices.ts; docs/api-reference.md, "Tax
 * invoices and credit notes", "Bookings"): one invoice per payment received, in its settlement's statement, its lines
 * the booking's scaled to the payment, the last taking the remainder; a credit note per refund of an invoiced payment;
 * none when the company is not registered; one under concurrent duplicate webhooks; the journal's VAT equals the
 * documents'. Every XML passes the PINT AE rules.
 */
const t = useBookingPaymentsWorld();
const nights = stays(90);
const terms = {
  booking_deposit_percent: 30,
  deposit_confirms: true,
  balance_due_days: 1,
  free_cancellation_days: 7,
  late_cancellation_refund_percent: 50,
  cleaning_fee: '150',
  tourism_fee_per_bedroom_night: '15',
  deposit: '500',
};

const accounting_accounts = bookingJournalAccounts;

/** An AED company (registered for VAT unless `registered` is false) whose Stripe account passes a 2.5% card fee on. */
async function company(registered = true) {
  const settings = registered ? { ...invoiceSettings, accounting_accounts } : { accounting_accounts };
  const w = await world({ api: t.w.api, company: { environment: 'development' }, settings });
  return { w, ctx: await stayCtx(w), account: await connectStripe(w, { cardFee: { kind: 'percent', value: '2.5' } }) };
}
type Company = Awaited<ReturnType<typeof company>>;

type Line = { name: string; gross: string; vat: string; category: string; rate: string | null };
type Doc = {
  id: string;
  number: string;
  kind: string;
  vat: string;
  gross: string;
  source_key: string;
  credits_id: string | null;
  issue_date: string;
  xml: string;
  simplified: boolean;
  document: { lines: Line[]; buyer: { name: string }; period: { start: string; end: string } };
};

const documentsOf = async (w: Company['w']) =>
  (await w.api.db
    .selectFrom('tax_documents')
    .selectAll()
    .select((eb) => [
      eb.cast('vat', 'text').as('vat'),
      eb.cast('gross', 'text').as('gross'),
      eb.cast('issue_date', 'text').as('issue_date'),
    ])
    .where('company_id', '=', w.company.id)
    .orderBy('sequence')
    .execute()) as unknown as Doc[];

const add = (values: string[]) => values.reduce((a, v) => a.plus(v), new Big(0));
const two = (v: Big | string) => new Big(v).toFixed(2);

/** Every XML through the PINT AE rules written from the spec, and the official artefacts when they are here. */
async function checkXml(docs: Doc[]) {
  for (const doc of docs) expect(checkPintAeRules(doc.xml), doc.number).toEqual([]);
  if (pintAeResources().missing.length === 0) {
    for (const report of await validatePintAe(docs.map((d) => ({ name: d.number, xml: d.xml })))) {
      expect(report.failed, report.name).toEqual([]);
    }
  }
}

/** The month's journal entries. */
async function journal(w: Company['w'], month: string) {
  const { data, error } = await w.client.GET('/api/v1/exports/journal', { params: { query: { month } } });
  if (!data) throw new Error(JSON.stringify(error));
  type Entry = { kind: string; online_payment: string | null; lines: Array<{ account: string; debit: string; credit: string }> };
  return (data as unknown as { entries: Entry[] }).entries;
}

/** VAT payable's credits less its debits over entries. */
const vatBooked = (entries: Awaited<ReturnType<typeof journal>>) =>
  add(
    entries.flatMap((e) =>
      e.lines.filter((l) => l.account === 'vat_payable').map((l) => new Big(l.credit).minus(l.debit).toString()),
    ),
  );

describe('a booking’s tax invoices', () => {
  it('issues one per payment, the deposit’s and the balance’s adding up to the booking’s lines', async () => {
    const { w, ctx, account } = await company();
    const owner = await w.contact({ name: 'Villa Owner' });
    const { home, booking } = await bookedHome(ctx, terms, nights(3), '1000.00');
    expect((await setUpkeep(w, home, { owner })).response.status).toBe(200);
    const deposit = await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    const balance = await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    const payments = await bookingPayments(ctx, booking.reference);
    expect(payments.map((p) => p.status)).toEqual(['succeeded', 'succeeded']);

    const docs = await documentsOf(w);
    expect(docs.map((d) => [d.kind, d.source_key])).toEqual([
      ['invoice', deposit.id],
      ['invoice', balance.id],
    ]);
    await checkXml(docs);
    // Each invoice is what its payment charged (its card fee included), simplified, naming the guest by reference only.
    for (const [doc, payment] of docs.map((d, i) => [d, payments[i]] as const)) {
      expect(two(doc.gross)).toBe(two(String(payment?.amount)));
      expect(doc.simplified).toBe(true);
      expect(doc.document.buyer.name).toBe(`Guest ${booking.reference}`);
      expect(doc.xml).not.toContain('Guest Name');
      const stayNights = booking.quote.nights as Array<{ date: string }>;
      expect(doc.document.period).toEqual({ start: stayNights[0]?.date, end: stayNights.at(-1)?.date });
      const fee = doc.document.lines.find((l) => l.name === 'Card fee');
      expect(fee && two(fee.gross)).toBe(two(new Big(String(payment?.card_fee)).plus(String(payment?.rounding))));
      expect(fee?.category).toBe('standard');
    }
    // The two invoices' lines (the card fees apart) are the booking's lines exactly.
    const byName = (name: string) =>
      two(add(docs.flatMap((d) => d.document.lines.filter((l) => l.name === name).map((l) => l.gross))));
    const quote = booking.quote;
    const fee = (code: string) => quote.fees.find((f: { code: string }) => f.code === code)?.amount ?? '0';
    expect(byName('Stay')).toBe(two(quote.subtotal));
    expect(byName('Cleaning')).toBe(two(fee('cleaning')));
    expect(byName('Tourism Dirham')).toBe(two(fee('tourism_fee')));
    expect(byName('Security deposit')).toBe(two(quote.deposit));
    const categories = Object.fromEntries(docs[0]?.document.lines.map((l) => [l.name, l.category]) ?? []);
    expect(categories).toMatchObject({ Stay: 'standard', Cleaning: 'standard', 'Tourism Dirham': 'out_of_scope' });
    expect(categories['Security deposit'] ?? 'out_of_scope').toBe('out_of_scope');

    // The events name the invoices by id and number.
    const events = (await w.allEvents()).filter((e) => e.type === 'invoice.issued');
    expect(events.map((e) => (e.data as { reference: string }).reference).sort()).toEqual(docs.map((d) => d.number).sort());

    // The journal books each invoice's VAT to VAT payable; the owner's lines hold the payments' bases less the stay's VAT.
    const month = String(payments[0]?.booked_on).slice(0, 7);
    const entries = await journal(w, month);
    const mine = entries.filter((e) => e.kind === 'booking_payment');
    expect(two(vatBooked(mine))).toBe(two(add(docs.map((d) => d.vat))));
    const lines = await w.api.db
      .selectFrom('owner_statement_lines')
      .selectAll()
      .where('booking_id', 'is not', null)
      .where('company_id', '=', w.company.id)
      .orderBy('id')
      .execute();
    const stayVat = (d: Doc) => add(d.document.lines.filter((l) => l.name !== 'Card fee').map((l) => l.vat));
    expect(lines.map((l) => two(String(l.amount)))).toEqual(
      docs.map((d, i) =>
        two(
          new Big(String(payments[i]?.amount))
            .minus(String(payments[i]?.card_fee))
            .minus(String(payments[i]?.rounding))
            .minus(stayVat(d)),
        ),
      ),
    );
    // Each entry balances, and booking receipts are emptied by the owner's lines.
    for (const e of entries) expect(two(add(e.lines.map((l) => l.debit)))).toBe(two(add(e.lines.map((l) => l.credit))));
    const receipts = add(
      entries.flatMap((e) =>
        e.lines.filter((l) => l.account === 'booking_receipts').map((l) => new Big(l.credit).minus(l.debit).toString()),
      ),
    );
    expect(two(receipts)).toBe('0.00');
    await w.close();
  });

  it('credits a refunded payment’s invoice with a credit note; a month’s documents’ VAT is its journal’s', async () => {
    const { w, ctx, account } = await company();
    // Rent in the same month: a receipt's fee VAT, booked from its statement line.
    const lease = await leasesOf(w).active({ fee: { kind: 'percent', value: '5' }, schedule: { payments: 12 } });
    const rent = leasesOf(w).paymentIds(lease)[0] as string;
    expect((await leasesOf(w).changePayment(rent, { status: 'received' })).response.status).toBe(200);
    // One booking paid and kept, one paid and cancelled in its free days (refunded in full).
    const kept = await bookedHome(ctx, terms, nights(2), '900.00');
    await payNow(ctx, t.stripe, w, account, kept.booking.stay_url, kept.booking.reference);
    const { booking } = await bookedHome(ctx, terms, nights(2), '800.00');
    const paid = await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    const cancelled = await cancelForm(ctx, booking.stay_url);
    expect(cancelled.status, cancelled.text).toBe(303);
    const [row] = await bookingPayments(ctx, booking.reference);
    expect(row?.status).toBe('refunded');

    const docs = await documentsOf(w);
    const invoice = docs.find((d) => d.kind === 'invoice' && d.source_key === paid.id);
    const credit = docs.find((d) => d.kind === 'credit_note');
    expect(invoice && credit).toBeTruthy();
    const refund = await w.api.db
      .selectFrom('payment_refunds')
      .selectAll()
      .where('payment_id', '=', paid.id)
      .executeTakeFirstOrThrow();
    expect(credit).toMatchObject({ source_key: refund.id, credits_id: invoice?.id, vat: invoice?.vat, gross: invoice?.gross });
    expect(credit?.document.lines.map((l) => [l.name, l.gross, l.vat])).toEqual(
      invoice?.document.lines.map((l) => [l.name, l.gross, l.vat]),
    );
    expect(credit?.xml).toContain('DL8.61.1.A');
    expect(credit?.xml).toContain(invoice?.number);
    const events = (await w.allEvents()).filter((e) => e.type === 'credit_note.issued');
    expect(events.map((e) => e.data)).toEqual([
      { credit_note_id: credit?.id, reference: credit?.number, invoice_reference: invoice?.number },
    ]);
    await checkXml(docs);

    // The month's invoices less its credit notes: the journal's VAT on bookings; with the rent's, all its VAT.
    const month = String(refund.booked_on).slice(0, 7);
    const entries = await journal(w, month);
    const inMonth = docs.filter((d) => d.issue_date.slice(0, 7) === month);
    expect(inMonth).toHaveLength(docs.length);
    const documentsVat = add(inMonth.map((d) => (d.kind === 'credit_note' ? new Big(d.vat).neg().toString() : d.vat)));
    const bookingEntries = entries.filter((e) => e.kind === 'booking_payment' || e.kind === 'online_refund');
    expect(two(vatBooked(bookingEntries))).toBe(two(documentsVat));
    const rentVat = add(
      (
        await w.api.db
          .selectFrom('owner_statement_lines')
          .select('vat')
          .where('company_id', '=', w.company.id)
          .where('kind', 'in', ['fee', 'fee_reversed', 'rent_vat', 'rent_vat_reversed'])
          .execute()
      ).map((l) => new Big(String(l.vat ?? 0)).neg().toString()),
    );
    expect(rentVat.gt(0)).toBe(true);
    expect(two(vatBooked(entries))).toBe(two(documentsVat.plus(rentVat)));
    await w.close();
  });

  it('credits a partial refund by the refund: the base from the stay’s lines, the rest from the card fee', async () => {
    const { w, ctx, account } = await company();
    // A late cancellation keeps half of the stay paid: the deposit payment is refunded in part.
    const { booking } = await bookedHome(ctx, { ...terms, free_cancellation_days: 300 }, nights(2), '800.00');
    const paid = await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    expect((await cancelForm(ctx, booking.stay_url)).status).toBe(303);
    const refund = await w.api.db
      .selectFrom('payment_refunds')
      .selectAll()
      .where('payment_id', '=', paid.id)
      .executeTakeFirstOrThrow();
    const docs = await documentsOf(w);
    const invoice = docs.find((d) => d.kind === 'invoice');
    const credit = docs.find((d) => d.kind === 'credit_note');
    expect(new Big(String(refund.amount)).lt(String(invoice?.gross))).toBe(true);
    expect(two(String(credit?.gross))).toBe(two(String(refund.amount)));
    // Half the stay paid is kept: the refund returns base only, never the card fee.
    expect(credit?.document.lines.some((l) => l.name === 'Card fee')).toBe(false);
    expect(credit?.document.lines.map((l) => l.name)).toContain('Stay');
    await checkXml(docs);
    const entries = await journal(w, String(refund.booked_on).slice(0, 7));
    const documentsVat = add(docs.map((d) => (d.kind === 'credit_note' ? new Big(d.vat).neg().toString() : d.vat)));
    expect(two(vatBooked(entries))).toBe(two(documentsVat));
    await w.close();
  });

  it('invoices what is left to pay when staff mark a booking paid; the journal moves its VAT out of booking receipts', async () => {
    const { w, ctx, account } = await company();
    // The deposit paid online confirms the booking; the guest pays the rest at the door, which staff record.
    const { booking } = await bookedHome(ctx, terms, nights(3), '1000.00');
    const deposit = await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    const marked = await step(ctx, booking.reference, 'mark-paid');
    expect(marked.status, marked.text).toBe(200);
    expect(marked.json.status).toBe('paid');
    const docs = await documentsOf(w);
    expect(docs.map((d) => [d.kind, d.source_key])).toEqual([
      ['invoice', deposit.id],
      ['invoice', booking.reference],
    ]);
    const [online, offline] = docs as [Doc, Doc];
    await checkXml(docs);
    // What is left: the booking's total and deposit less the deposit's base; no card fee on what staff received.
    const [paid] = await bookingPayments(ctx, booking.reference);
    const base = new Big(String(paid?.amount)).minus(String(paid?.card_fee)).minus(String(paid?.rounding));
    expect(two(offline.gross)).toBe(two(new Big(booking.quote.total).plus(booking.quote.deposit).minus(base)));
    expect(offline.document.lines.some((l) => l.name === 'Card fee')).toBe(false);
    expect(offline.xml).toContain('>1</cbc:PaymentMeansCode>');
    // The two invoices' lines (the card fee apart) are the booking's lines exactly.
    const byName = (name: string) =>
      two(add(docs.flatMap((d) => d.document.lines.filter((l) => l.name === name).map((l) => l.gross))));
    expect(byName('Stay')).toBe(two(booking.quote.subtotal));
    expect(byName('Security deposit')).toBe(two(booking.quote.deposit));
    const events = (await w.allEvents()).filter((e) => e.type === 'invoice.issued');
    expect(events.map((e) => (e.data as { reference: string }).reference).sort()).toEqual([online.number, offline.number]);

    // Marking it paid again changes nothing: 409, no second invoice.
    expect((await step(ctx, booking.reference, 'mark-paid')).status).toBe(409);
    expect(await documentsOf(w)).toHaveLength(2);

    // The journal: the offline invoice's VAT from booking receipts to VAT payable, balanced; all VAT is the documents'.
    const month = offline.issue_date.slice(0, 7);
    const entries = await journal(w, month);
    const moved = entries.filter((e) => e.kind === 'booking_paid_offline');
    expect(moved).toHaveLength(1);
    expect(moved[0]?.lines.map((l) => [l.account, l.debit, l.credit])).toEqual([
      ['booking_receipts', two(offline.vat), '0.00'],
      ['vat_payable', '0.00', two(offline.vat)],
    ]);
    const inMonth = docs.filter((d) => d.issue_date.slice(0, 7) === month);
    expect(two(vatBooked(entries))).toBe(two(add(inMonth.map((d) => d.vat))));
    // The CSV exports carry it (every account mapped).
    const csv = await w.client.GET('/api/v1/exports/journal', {
      params: { query: { month, format: 'xero' } },
      parseAs: 'text',
    });
    expect(csv.response.status).toBe(200);
    expect(String(csv.data)).toContain(`BO-${offline.number}`);
    await w.close();
  });

  it('invoices the whole booking when staff mark paid a booking the guest paid nothing of online', async () => {
    const { w, ctx } = await company();
    const { booking } = await bookedHome(ctx, { ...terms, booking_deposit_percent: null, deposit_confirms: false }, nights(2));
    expect((await step(ctx, booking.reference, 'confirm')).status).toBe(200);
    expect((await step(ctx, booking.reference, 'mark-paid')).status).toBe(200);
    const docs = await documentsOf(w);
    expect(docs).toHaveLength(1);
    expect(two(String(docs[0]?.gross))).toBe(two(new Big(booking.quote.total).plus(booking.quote.deposit)));
    await checkXml(docs);
    await w.close();
  });

  it('issues none when the company is not registered for VAT: the payment is recorded all the same', async () => {
    const { w, ctx, account } = await company(false);
    const { booking } = await bookedHome(ctx, terms, nights(2), '800.00');
    await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    const [row] = await bookingPayments(ctx, booking.reference);
    expect(row?.status).toBe('succeeded');
    // Nor when staff record the rest.
    expect((await step(ctx, booking.reference, 'mark-paid')).status).toBe(200);
    expect(await documentsOf(w)).toEqual([]);
    await w.close();
  });

  it('issues one invoice under concurrent duplicate webhooks', async () => {
    const { w, ctx, account } = await company();
    const { booking } = await bookedHome(ctx, terms, nights(2), '800.00');
    const res = await payForm(ctx, booking.stay_url);
    expect(res.status).toBe(303);
    const [open] = await bookingPayments(ctx, booking.reference);
    if (!open) throw new Error('no checkout');
    t.stripe.pay(open.checkout_id, { at: w.api.clock.now() });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        deliverEvent(w, t.stripe, account, 'checkout.session.completed', open.checkout_id, i % 2 === 0 ? 'evt_same' : undefined),
      ),
    );
    for (const { res: delivered } of answers) expect(delivered.status, delivered.text).toBe(200);
    const docs = await documentsOf(w);
    expect(docs.map((d) => [d.kind, d.source_key, d.number])).toEqual([['invoice', open.id, 'INV-000001']]);
    await checkXml(docs);
    await w.close();
  });
});

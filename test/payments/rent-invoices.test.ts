import { beforeAll, describe, expect, it } from 'vitest';
import { invoiceSettings } from '../support/invoices';
import { checkPintAeRules } from '../support/pint-ae';
import { leasesOf } from '../support/world';
import { type Account, connectStripe, deliverEvent, paymentLink, paymentRow, usePaymentsWorld } from './support';

/**
 * A rent payment paid online (Stripe's stand-in on loopback) issues its tax invoice in the settlement's one statement
 * (lib/payments/settle.ts with lib/rent-invoices.ts, the builder staff's PATCH uses): a commercial lease's rent, the
 * company billing as the landlord's disclosed agent; paid by card (48). A rent payment staff received first keeps its
 * one invoice: the online payment is refunded, never invoiced again.
 */
const t = usePaymentsWorld();
const { w } = t;
const l = leasesOf(w);
let account: Account;
let payments: string[];
const landlordTrn = '100987654300003';

beforeAll(async () => {
  const changed = await w.adminClient.PATCH('/admin/v1/companies/{company_id}', {
    params: { path: { company_id: w.company.id } },
    body: { settings: invoiceSettings } as never,
  });
  expect(changed.response.status, JSON.stringify(changed.error)).toBe(200);
  account = await connectStripe(w);
  const landlord = await w.contact({ name: 'Khalid Al Mansouri' });
  const res = await w.client.PATCH('/api/v1/contacts/{reference}', {
    params: { path: { reference: landlord } },
    body: { trn: landlordTrn } as never,
  });
  expect(res.response.status, JSON.stringify(res.error)).toBe(200);
  payments = l.paymentIds(await l.active({ landlord, tax_category: 'standard', schedule: { payments: 12 } }));
});

const documentsOf = (paymentId: string) =>
  w.api.db
    .selectFrom('tax_documents')
    .selectAll()
    .where('company_id', '=', w.company.id)
    .where('source_key', '=', paymentId)
    .execute();

async function payOnline(due: string) {
  const { data } = await paymentLink(w, due);
  const row = await paymentRow(w, data?.payment as string);
  t.stripe.pay(row.checkout_id);
  const { res } = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', row.checkout_id);
  expect(res.status, res.text).toBe(200);
  return res;
}

describe('a rent payment settled by the provider', () => {
  it('issues the receipt’s tax invoice in the settlement’s statement, paid by card, as the landlord’s agent', async () => {
    const due = payments[0] as string;
    const res = await payOnline(due);
    expect(res.json).toMatchObject({ acted: true, status: 'succeeded' });
    const { data: rent } = await l.payment(due);
    expect(rent).toMatchObject({ status: 'received', tax: { category: 'standard' } });
    const [invoice, ...more] = await documentsOf(due);
    expect(more).toEqual([]);
    expect(invoice).toMatchObject({ kind: 'invoice', type_code: '380', simplified: true, source_kind: 'rent_payment' });
    const document = invoice?.document as unknown as Record<string, any>;
    expect(document.payment).toEqual({ code: '48' });
    expect(document.principal).toEqual({ name: 'Khalid Al Mansouri', trn: landlordTrn });
    expect(document.period).toEqual({ start: '2027-01-01', end: '2027-01-31', frequency: 'MTH' });
    expect(document.lines[0]).toMatchObject({ gross: rent?.amount, vat: rent?.tax?.vat, serviceCode: '997212' });
    const xml = await w.request(`/invoices/${invoice?.number}.xml`);
    expect(xml.status).toBe(200);
    expect(checkPintAeRules(xml.text)).toEqual([]);
    expect(xml.text).toContain('<cbc:ProfileExecutionID>00001100</cbc:ProfileExecutionID>');
    expect(xml.text).toContain('<cbc:PaymentMeansCode');
    const issued = (await w.allEvents()).filter((e) => e.type === 'invoice.issued' && e.data.reference === invoice?.number);
    expect(issued).toHaveLength(1);
    expect(t.stripe.problems).toEqual([]);
  });

  it('issues nothing more for a payment staff received first (the online payment is refunded)', async () => {
    const due = payments[1] as string;
    const { data } = await paymentLink(w, due);
    const row = await paymentRow(w, data?.payment as string);
    const received = await l.changePayment(due, { status: 'received' });
    expect(received.response.status, JSON.stringify(received.error)).toBe(200);
    expect(await documentsOf(due)).toHaveLength(1);
    t.stripe.pay(row.checkout_id);
    const { res } = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', row.checkout_id);
    expect(res.status, res.text).toBe(200);
    expect(await documentsOf(due)).toHaveLength(1);
  });
});

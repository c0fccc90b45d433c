import { describe, expect, it } from 'vitest';
import { approvedCard } from '../support/ngenius-standin';
import { leasesOf } from '../support/world';
import { accountsOf, duePayment, eventsNaming, paymentLink, paymentRow, payOnHostedPage, useNgeniusWorld } from './support';

/**
 * A rent payment link through Network International's N-Genius, end to end (issue 34): the company connects an
 * N-Genius account (outlet, API key, the webhook header's value), the tenant pays on the stand-in's hosted page
 * (test/support/ngenius-standin.ts, built from the published reference), N-Genius's webhook reaches our receiver,
 * and the rent payment is received — the same settlement as Stripe's, through the same interface.
 */
const { w, standin, apiKey, account, deliver } = useNgeniusWorld();

describe('a rent payment link through N-Genius', () => {
  it('needs the payer’s email: 400 at the field, nothing made at N-Genius', async () => {
    const due = await duePayment(w);
    const orders = standin.log.filter((line) => line.endsWith('/orders')).length;
    const res = await paymentLink(w, due);
    expect(res.response.status).toBe(400);
    expect(res.error?.errors?.[0]).toMatchObject({ path: 'email', code: 'required' });
    expect(standin.log.filter((line) => line.endsWith('/orders')).length).toBe(orders);
  });

  it('makes the order in minor units, and the tenant’s payment, announced by N-Genius, makes the rent received', async () => {
    const due = await duePayment(w);
    const { data: rent } = await leasesOf(w).payment(due);
    const { data: link, response } = await paymentLink(w, due, {
      return_url: 'https://www.example.com/paid',
      email: 'tenant@example.com',
    });
    expect(response.status).toBe(201);
    if (!link) throw new Error('no link answered');
    const row = await paymentRow(w, link.payment);
    expect(row).toMatchObject({ provider: 'ngenius', status: 'open' });
    const order = standin.order(row.checkout_id);
    if (!order) throw new Error(`no order ${row.checkout_id} at the stand-in`);
    expect(order.amount).toEqual({ currencyCode: 'AED', value: Math.round(Number(rent?.amount) * 100) });
    expect(order.merchantOrderReference).toBe(link.payment.replace('_', '-'));
    expect(link.url).toBe(order._links.payment.href);

    // A forged delivery (the wrong header value) changes nothing.
    const forged = await deliver(row.checkout_id, 'PURCHASED', 'not-the-secret');
    expect(forged.status).toBe(403);

    const back = await payOnHostedPage(link?.url as string, approvedCard);
    expect(back.startsWith('https://www.example.com/paid?payment=')).toBe(true);
    const answers = await Promise.all(Array.from({ length: 10 }, () => deliver(row.checkout_id, 'PURCHASED')));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers.filter((a) => a.json.acted === true)).toHaveLength(1);

    const after = await paymentRow(w, link?.payment as string);
    expect(after).toMatchObject({ status: 'succeeded', method: 'card' });
    const { data: received } = await leasesOf(w).payment(due);
    expect(received?.status).toBe('received');
    expect(await eventsNaming(w, 'payment.succeeded', link?.payment as string)).toHaveLength(1);
    expect(await eventsNaming(w, 'rent_payment.received', due)).toHaveLength(1);
    expect(standin.refusals).toEqual([]);
  });

  it('a company key N-Genius does not know: 502 provider_refused, nothing recorded', async () => {
    const changed = await accountsOf(w).change(account.id, { api_key: 'a-key-ngenius-never-issued' });
    expect(changed.response.status, JSON.stringify(changed.error)).toBe(200);
    try {
      const due = await duePayment(w);
      const res = await paymentLink(w, due, { return_url: 'https://www.example.com/paid', email: 'tenant@example.com' });
      expect(res.response.status).toBe(502);
      expect(res.error?.code).toBe('provider_refused');
      const open = await w.api.db.selectFrom('payments').select('id').where('rent_payment_id', '=', due).execute();
      expect(open).toEqual([]);
    } finally {
      await accountsOf(w).change(account.id, { api_key: apiKey });
    }
  });
});

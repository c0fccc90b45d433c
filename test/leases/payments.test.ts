import { afterEach, describe, expect, it } from 'vitest';
import { leasesOf, useWorld, world } from '../support/world';

const w = useWorld();
const l = leasesOf(w);
afterEach(() => w.api.clock.set(null));

/** 20:30 UTC on 10 February is already 11 February in Dubai, the company's time zone. */
const evening = new Date('2027-02-10T20:30:00Z');

/** A draft's payments (a year at 120000 in 4, as leaseBody's), and the lease. */
async function draftPayments(overrides: Record<string, unknown> = {}) {
  const lease = await l.draft(overrides);
  return { lease, ids: l.paymentIds(lease) };
}

describe('PATCH /rent-payments/{payment_id}', () => {
  it('books a receipt on today in the company’s time zone with the lease’s fee, once (rent_payment.received)', async () => {
    const { lease, ids } = await draftPayments({ fee: { kind: 'percent', value: '2.5' } });
    const [id] = ids as [string];
    w.api.clock.set(evening);
    const received = await l.changePayment(id, { status: 'received' });
    expect(received.response.status, JSON.stringify(received.error)).toBe(200);
    expect(received.data).toMatchObject({
      payment_id: id,
      lease: lease.reference,
      status: 'received',
      amount: '30000.00',
      booked_on: '2027-02-11',
      fee_amount: '750.00',
      bounced_on: null,
      received_at: evening.toISOString(),
    });
    expect(received.response.headers.get('etag')).toMatch(/^"v\d+"$/);
    const again = await l.changePayment(id, { status: 'received' });
    expect(again.response.status).toBe(200);
    expect(again.data?.updated_at).toBe(received.data?.updated_at);
    expect(await l.paymentEvents(id)).toEqual(['rent_payment.received']);
    const event = (await w.api.db.selectFrom('events').select('data').where('type', '=', 'rent_payment.received').execute()).find(
      (e) => e.data.payment_id === id,
    );
    expect(event?.data).toEqual({ payment_id: id, lease_reference: lease.reference });
  });

  it('takes a fixed fee as it is, and no fee as 0.00; a later change of the lease’s fee leaves a receipt’s fee alone', async () => {
    const fixed = await draftPayments({ fee: { kind: 'fixed', value: '100' } });
    const none = await draftPayments();
    expect((await l.changePayment(fixed.ids[0] as string, { status: 'received' })).data?.fee_amount).toBe('100.00');
    expect((await l.changePayment(none.ids[0] as string, { status: 'received' })).data?.fee_amount).toBe('0.00');
    const changed = await l.patch(fixed.lease.reference, { fee: { kind: 'fixed', value: '400' } });
    expect(changed.response.status, JSON.stringify(changed.error)).toBe(200);
    expect((await l.payment(fixed.ids[0] as string)).data?.fee_amount).toBe('100.00');
    expect((await l.changePayment(fixed.ids[1] as string, { status: 'received' })).data?.fee_amount).toBe('400.00');
  });

  it('reverses a receipt on the day it bounces (bounced_on), and a cheque bouncing before it counted books nothing', async () => {
    const { ids } = await draftPayments();
    const [afterReceipt, beforeReceipt] = ids as [string, string];
    w.api.clock.set(new Date('2027-01-05T08:00:00Z'));
    await l.changePayment(afterReceipt, { status: 'received' });
    w.api.clock.set(evening);
    const reversed = await l.changePayment(afterReceipt, { status: 'bounced' });
    expect(reversed.response.status, JSON.stringify(reversed.error)).toBe(200);
    expect(reversed.data).toMatchObject({ status: 'bounced', booked_on: '2027-01-05', bounced_on: '2027-02-11' });
    const bounced = await l.changePayment(beforeReceipt, { status: 'bounced' });
    expect(bounced.data).toMatchObject({ status: 'bounced', booked_on: null, fee_amount: null, bounced_on: null });
    expect(bounced.data?.bounced_at).toBe(evening.toISOString());
    expect(await l.paymentEvents(afterReceipt)).toEqual(['rent_payment.received', 'rent_payment.bounced']);
    expect(await l.paymentEvents(beforeReceipt)).toEqual(['rent_payment.bounced']);
  });

  it('never changes a bounced payment (409 payment_bounced); the same status again changes nothing', async () => {
    const { ids } = await draftPayments();
    const id = ids[0] as string;
    const bounced = (await l.changePayment(id, { status: 'bounced' })).data;
    for (const body of [
      { status: 'received' },
      { status: 'cancelled' },
      { notes: 'Called the renter' },
      { amount: '1.00' },
      { external: { source: 'xero', id: `pay-${w.unique()}` } },
    ]) {
      const res = await l.changePayment(id, body);
      expect(res.response.status, JSON.stringify(body)).toBe(409);
      expect(res.response.headers.get('content-type')).toContain('application/problem+json');
      expect(res.error?.code).toBe('payment_bounced');
    }
    const again = await l.changePayment(id, { status: 'bounced' });
    expect(again.response.status).toBe(200);
    expect(again.data).toEqual(bounced);
  });

  it('cancels a payment still due; any move the states do not allow is 409 invalid_transition', async () => {
    const { ids } = await draftPayments();
    const [due, received] = ids as [string, string];
    const cancelled = await l.changePayment(due, { status: 'cancelled' });
    expect(cancelled.data).toMatchObject({ status: 'cancelled', booked_on: null });
    expect(cancelled.data?.cancelled_at).not.toBeNull();
    await l.changePayment(received, { status: 'received' });
    for (const [id, status] of [
      [due, 'received'],
      [due, 'bounced'],
      [received, 'cancelled'],
    ] as const) {
      const res = await l.changePayment(id, { status });
      expect(res.response.status, `${id} ${status}`).toBe(409);
      expect(res.error?.code).toBe('invalid_transition');
    }
    expect((await l.payment(due)).data?.status).toBe('cancelled');
    expect(await l.paymentEvents(due)).toEqual([]);
  });

  it('lets a payment still due change its own fields, with a status step in the same request', async () => {
    const { ids } = await draftPayments();
    const [id, other] = ids as [string, string];
    const changed = await l.changePayment(id, {
      due_on: '2027-01-10',
      amount: '29999.5',
      cheque: { number: '000777', bank: 'Mashreq' },
      notes: 'Post-dated cheque handed over',
    });
    expect(changed.response.status, JSON.stringify(changed.error)).toBe(200);
    expect(changed.data).toMatchObject({
      status: 'due',
      due_on: '2027-01-10',
      amount: '29999.50',
      cheque: { number: '000777', bank: 'Mashreq' },
      notes: 'Post-dated cheque handed over',
    });
    expect((await l.changePayment(id, { cheque: null, notes: null })).data).toMatchObject({ cheque: null, notes: null });
    const both = await l.changePayment(other, { amount: '1000', status: 'received', notes: 'Part paid in cash' });
    expect(both.data).toMatchObject({ amount: '1000.00', status: 'received', notes: 'Part paid in cash' });
    const settled = await l.changePayment(other, { notes: 'Changed later' });
    expect(settled.response.status).toBe(409);
    expect(settled.error?.code).toBe('payment_settled');
  });

  it('refuses amounts the currency cannot keep and bad fields with 400, changing nothing', async () => {
    const { ids } = await draftPayments();
    const id = ids[0] as string;
    const before = (await l.payment(id)).data;
    for (const body of [
      { amount: '10.001' },
      { amount: 10 },
      { amount: '-1' },
      { due_on: '2027-02-30' },
      { status: 'due' },
      { booked_on: '2027-01-01' },
      { cheque: { number: '1' } },
    ]) {
      const res = await l.changePayment(id, body);
      expect(res.response.status, JSON.stringify(body)).toBe(400);
      expect(res.response.headers.get('content-type')).toContain('application/problem+json');
    }
    expect((await l.payment(id)).data).toEqual(before);
  });

  it('answers 404 for an unknown or malformed payment id, and another company’s payment', async () => {
    const { ids } = await draftPayments();
    const other = leasesOf(await world({ api: w.api }));
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', ids[0] as string]) {
      const read = await other.payment(id);
      expect(read.response.status, id).toBe(404);
      expect((await other.changePayment(id, { status: 'received' })).response.status, id).toBe(404);
    }
    expect((await l.payment(ids[0] as string)).data?.status).toBe('due');
  });

  it('links your id to a settled payment, moving its updated_at, and finds it by ?external=', async () => {
    const { ids } = await draftPayments();
    const id = ids[0] as string;
    const received = (await l.changePayment(id, { status: 'received' })).data!;
    const external = { source: 'xero', id: `inv-${w.unique()}` };
    const linked = await l.changePayment(id, { external });
    expect(linked.response.status, JSON.stringify(linked.error)).toBe(200);
    expect(linked.data?.external).toEqual([external]);
    expect(Date.parse(linked.data?.updated_at ?? '')).toBeGreaterThan(Date.parse(received.updated_at));
    expect(linked.data).toMatchObject({ booked_on: received.booked_on, fee_amount: received.fee_amount });
    const again = await l.changePayment(id, { external });
    expect(again.data?.updated_at).toBe(linked.data?.updated_at);
    const found = await w.client.GET('/api/v1/rent-payments', { params: { query: { external: `xero:${external.id}` } } });
    expect(found.data?.results.map((p) => p.payment_id)).toEqual([id]);
  });

  it('moves its lease’s updated_at and ETag: the lease shows its schedule', async () => {
    const { lease, ids } = await draftPayments();
    const before = await l.get(lease.reference);
    await l.changePayment(ids[0] as string, { status: 'received' });
    const after = await l.get(lease.reference);
    expect(after.response.headers.get('etag')).not.toBe(before.response.headers.get('etag'));
    expect(Date.parse(after.data?.updated_at ?? '')).toBeGreaterThan(Date.parse(before.data?.updated_at ?? ''));
    expect(after.data?.schedule.rows[0]).toMatchObject({ payment_id: ids[0], status: 'received' });
  });

  it('honours If-Match: a stale ETag is 412 and changes nothing', async () => {
    const { ids } = await draftPayments();
    const id = ids[0] as string;
    const read = await l.payment(id);
    const etag = read.response.headers.get('etag') as string;
    expect(etag).toMatch(/^"v\d+"$/);
    expect((await l.changePayment(id, { notes: 'First' }, { 'If-Match': etag })).response.status).toBe(200);
    const stale = await l.changePayment(id, { status: 'received' }, { 'If-Match': etag });
    expect(stale.response.status).toBe(412);
    expect((await l.payment(id)).data?.status).toBe('due');
    expect(await l.paymentEvents(id)).toEqual([]);
  });
});

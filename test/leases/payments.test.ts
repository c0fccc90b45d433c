import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { leaseWorld } from './http';

let w: Awaited<ReturnType<typeof leaseWorld>>;
beforeAll(async () => {
  w = await leaseWorld();
});
afterEach(() => w.api.clock.set(null));
afterAll(() => w.api.close());

/** 20:30 UTC on 10 February is already 11 February in Dubai, the company's time zone. */
const evening = new Date('2027-02-10T20:30:00Z');

/** A draft's payments (a year at 120000 in 4, as leaseWorld's body), and the lease. */
async function draftPayments(overrides: Record<string, unknown> = {}) {
  const lease = (await w.post(w.body(overrides))).json;
  return { lease, ids: w.paymentsOf(lease) as string[] };
}

describe('PATCH /rent-payments/{payment_id}', () => {
  it('books a receipt on today in the company’s time zone with the lease’s fee, once (rent_payment.received)', async () => {
    const { lease, ids } = await draftPayments({ fee: { kind: 'percent', value: '2.5' } });
    const [id] = ids as [string];
    w.api.clock.set(evening);
    const received = await w.payment(id, { status: 'received' });
    expect(received.status, received.text).toBe(200);
    expect(received.json).toMatchObject({
      payment_id: id,
      lease: lease.reference,
      status: 'received',
      amount: '30000.00',
      booked_on: '2027-02-11',
      fee_amount: '750.00',
      bounced_on: null,
      received_at: evening.toISOString(),
    });
    expect(received.headers.get('etag')).toMatch(/^"v\d+"$/);
    const again = await w.payment(id, { status: 'received' });
    expect(again.status).toBe(200);
    expect(again.json.updated_at).toBe(received.json.updated_at);
    expect(await w.paymentEvents(id)).toEqual(['rent_payment.received']);
    const event = (await w.api.db.selectFrom('events').select('data').where('type', '=', 'rent_payment.received').execute()).find(
      (e) => e.data.payment_id === id,
    );
    expect(event?.data).toEqual({ payment_id: id, lease_reference: lease.reference });
  });

  it('takes a fixed fee as it is, and no fee as 0.00; a later change of the lease’s fee leaves a receipt’s fee alone', async () => {
    const fixed = await draftPayments({ fee: { kind: 'fixed', value: '100' } });
    const none = await draftPayments();
    expect((await w.payment(fixed.ids[0] as string, { status: 'received' })).json.fee_amount).toBe('100.00');
    expect((await w.payment(none.ids[0] as string, { status: 'received' })).json.fee_amount).toBe('0.00');
    const changed = await w.write(`/leases/${fixed.lease.reference}`, { fee: { kind: 'fixed', value: '400' } }, {}, 'PATCH');
    expect(changed.status, changed.text).toBe(200);
    expect((await w.get(`/rent-payments/${fixed.ids[0]}`)).json.fee_amount).toBe('100.00');
    expect((await w.payment(fixed.ids[1] as string, { status: 'received' })).json.fee_amount).toBe('400.00');
  });

  it('reverses a receipt on the day it bounces (bounced_on), and a cheque bouncing before it counted books nothing', async () => {
    const { ids } = await draftPayments();
    const [afterReceipt, beforeReceipt] = ids as [string, string];
    w.api.clock.set(new Date('2027-01-05T08:00:00Z'));
    await w.payment(afterReceipt, { status: 'received' });
    w.api.clock.set(evening);
    const reversed = await w.payment(afterReceipt, { status: 'bounced' });
    expect(reversed.status, reversed.text).toBe(200);
    expect(reversed.json).toMatchObject({ status: 'bounced', booked_on: '2027-01-05', bounced_on: '2027-02-11' });
    const bounced = await w.payment(beforeReceipt, { status: 'bounced' });
    expect(bounced.json).toMatchObject({ status: 'bounced', booked_on: null, fee_amount: null, bounced_on: null });
    expect(bounced.json.bounced_at).toBe(evening.toISOString());
    expect(await w.paymentEvents(afterReceipt)).toEqual(['rent_payment.received', 'rent_payment.bounced']);
    expect(await w.paymentEvents(beforeReceipt)).toEqual(['rent_payment.bounced']);
  });

  it('never changes a bounced payment (409 payment_bounced); the same status again changes nothing', async () => {
    const { ids } = await draftPayments();
    const id = ids[0] as string;
    const bounced = (await w.payment(id, { status: 'bounced' })).json;
    for (const body of [
      { status: 'received' },
      { status: 'cancelled' },
      { notes: 'Called the renter' },
      { amount: '1.00' },
      { external: { source: 'xero', id: `pay-${w.unique()}` } },
    ]) {
      const res = await w.payment(id, body);
      expect(res.status, JSON.stringify(body)).toBe(409);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.json.code).toBe('payment_bounced');
    }
    const again = await w.payment(id, { status: 'bounced' });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(bounced);
  });

  it('cancels a payment still due; any move the states do not allow is 409 invalid_transition', async () => {
    const { ids } = await draftPayments();
    const [due, received] = ids as [string, string];
    const cancelled = await w.payment(due, { status: 'cancelled' });
    expect(cancelled.json).toMatchObject({ status: 'cancelled', booked_on: null });
    expect(cancelled.json.cancelled_at).not.toBeNull();
    await w.payment(received, { status: 'received' });
    for (const [id, status] of [
      [due, 'received'],
      [due, 'bounced'],
      [received, 'cancelled'],
    ] as const) {
      const res = await w.payment(id, { status });
      expect(res.status, `${id} ${status}`).toBe(409);
      expect(res.json.code).toBe('invalid_transition');
    }
    expect((await w.get(`/rent-payments/${due}`)).json.status).toBe('cancelled');
    expect(await w.paymentEvents(due)).toEqual([]);
  });

  it('lets a payment still due change its own fields, with a status step in the same request', async () => {
    const { ids } = await draftPayments();
    const [id, other] = ids as [string, string];
    const changed = await w.payment(id, {
      due_on: '2027-01-10',
      amount: '29999.5',
      cheque: { number: '000777', bank: 'Mashreq' },
      notes: 'Post-dated cheque handed over',
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json).toMatchObject({
      status: 'due',
      due_on: '2027-01-10',
      amount: '29999.50',
      cheque: { number: '000777', bank: 'Mashreq' },
      notes: 'Post-dated cheque handed over',
    });
    expect((await w.payment(id, { cheque: null, notes: null })).json).toMatchObject({ cheque: null, notes: null });
    const both = await w.payment(other, { amount: '1000', status: 'received', notes: 'Part paid in cash' });
    expect(both.json).toMatchObject({ amount: '1000.00', status: 'received', notes: 'Part paid in cash' });
    const settled = await w.payment(other, { notes: 'Changed later' });
    expect(settled.status).toBe(409);
    expect(settled.json.code).toBe('payment_settled');
  });

  it('refuses amounts the currency cannot keep and bad fields with 400, changing nothing', async () => {
    const { ids } = await draftPayments();
    const id = ids[0] as string;
    const before = (await w.get(`/rent-payments/${id}`)).json;
    for (const body of [
      { amount: '10.001' },
      { amount: 10 },
      { amount: '-1' },
      { due_on: '2027-02-30' },
      { status: 'due' },
      { booked_on: '2027-01-01' },
      { cheque: { number: '1' } },
    ]) {
      const res = await w.payment(id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    expect((await w.get(`/rent-payments/${id}`)).json).toEqual(before);
  });

  it('answers 404 for an unknown or malformed payment id, and another company’s payment', async () => {
    const { ids } = await draftPayments();
    const other = await leaseWorld(w.api);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', ids[0] as string]) {
      const read = await other.get(`/rent-payments/${id}`);
      expect(read.status, id).toBe(404);
      expect((await other.payment(id, { status: 'received' })).status, id).toBe(404);
    }
    expect((await w.get(`/rent-payments/${ids[0]}`)).json.status).toBe('due');
  });

  it('links your id to a settled payment, moving its updated_at, and finds it by ?external=', async () => {
    const { ids } = await draftPayments();
    const id = ids[0] as string;
    const received = (await w.payment(id, { status: 'received' })).json;
    const external = { source: 'xero', id: `inv-${w.unique()}` };
    const linked = await w.payment(id, { external });
    expect(linked.status, linked.text).toBe(200);
    expect(linked.json.external).toEqual([external]);
    expect(Date.parse(linked.json.updated_at)).toBeGreaterThan(Date.parse(received.updated_at));
    expect(linked.json).toMatchObject({ booked_on: received.booked_on, fee_amount: received.fee_amount });
    const again = await w.payment(id, { external });
    expect(again.json.updated_at).toBe(linked.json.updated_at);
    const found = await w.get(`/rent-payments?external=xero:${external.id}`);
    expect(found.json.results.map((p: { payment_id: string }) => p.payment_id)).toEqual([id]);
  });

  it('moves its lease’s updated_at and ETag: the lease shows its schedule', async () => {
    const { lease, ids } = await draftPayments();
    const before = await w.get(`/leases/${lease.reference}`);
    await w.payment(ids[0] as string, { status: 'received' });
    const after = await w.get(`/leases/${lease.reference}`);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(Date.parse(after.json.updated_at)).toBeGreaterThan(Date.parse(before.json.updated_at));
    expect(after.json.schedule.rows[0]).toMatchObject({ payment_id: ids[0], status: 'received' });
  });

  it('honours If-Match: a stale ETag is 412 and changes nothing', async () => {
    const { ids } = await draftPayments();
    const id = ids[0] as string;
    const read = await w.get(`/rent-payments/${id}`);
    const etag = read.headers.get('etag') as string;
    expect(etag).toMatch(/^"v\d+"$/);
    expect((await w.payment(id, { notes: 'First' }, { 'If-Match': etag })).status).toBe(200);
    const stale = await w.payment(id, { status: 'received' }, { 'If-Match': etag });
    expect(stale.status).toBe(412);
    expect((await w.get(`/rent-payments/${id}`)).json.status).toBe('due');
    expect(await w.paymentEvents(id)).toEqual([]);
  });
});

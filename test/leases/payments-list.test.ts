import { afterEach, describe, expect, it } from 'vitest';
import { leasesOf, useWorld } from '../support/world';

const w = useWorld();
const l = leasesOf(w);
afterEach(() => w.api.clock.set(null));

const at = (day: string) => new Date(`${day}T08:00:00Z`);
const add = (body: Record<string, unknown>) => l.replace(body);

/** Every page of a list, following next_cursor. */
async function all(query: string) {
  const rows: Array<Record<string, unknown>> = [];
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<typeof l.payments>> = await l.payments(
      `page_size=2&${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(page.response.status, JSON.stringify(page.error)).toBe(200);
    rows.push(...(page.data?.results ?? []));
    cursor = page.data?.next_cursor ?? null;
  } while (cursor);
  return rows;
}

describe('POST /rent-payments', () => {
  it('adds a due replacement on the bounced payment’s lease, several if need be; an external id makes it idempotent', async () => {
    const lease = await l.draft();
    const [bounced] = l.paymentIds(lease) as [string];
    await l.changePayment(bounced, { status: 'bounced' });
    const external = { source: 'xero', id: `pay-${w.unique()}` };
    const cheque = await add({
      replaces: bounced,
      due_on: '2027-01-20',
      amount: '20000',
      cheque: { number: '000901', bank: 'ADCB' },
      external,
    });
    expect(cheque.response.status, JSON.stringify(cheque.error)).toBe(201);
    expect(cheque.data).toMatchObject({
      lease: lease.reference,
      status: 'due',
      replaces: bounced,
      amount: '20000.00',
      due_on: '2027-01-20',
      cheque: { number: '000901', bank: 'ADCB' },
      external: [external],
    });
    const again = await add({ replaces: bounced, due_on: '2027-01-21', amount: '1', external });
    expect(again.response.status).toBe(200);
    expect(again.data?.payment_id).toBe(cheque.data?.payment_id);
    const cash = await add({ replaces: bounced, due_on: '2027-01-20', amount: '10000', notes: 'Cash' });
    expect(cash.response.status).toBe(201);
    const schedule = (await l.get(lease.reference)).data?.schedule.rows;
    expect(schedule?.map((r) => r.payment_id)).toEqual(expect.arrayContaining([cheque.data?.payment_id, cash.data?.payment_id]));
    expect((await l.payments(`external=xero:${external.id}`)).data?.results.map((r) => r.payment_id)).toEqual([
      cheque.data?.payment_id,
    ]);
  });

  it('replaces only a bounced payment (409 payment_not_bounced); an unknown one is 400 at replaces', async () => {
    const lease = await l.draft();
    const [due, received] = l.paymentIds(lease) as [string, string];
    await l.changePayment(received, { status: 'received' });
    for (const id of [due, received]) {
      const res = await add({ replaces: id, due_on: '2027-01-20', amount: '100' });
      expect(res.response.status).toBe(409);
      expect(res.error?.code).toBe('payment_not_bounced');
    }
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
      const res = await add({ replaces: id, due_on: '2027-01-20', amount: '100' });
      expect(res.response.status).toBe(400);
      expect(res.error?.errors).toEqual([expect.objectContaining({ path: 'replaces', code: 'unknown_reference' })]);
    }
    const count = await w.api.db
      .selectFrom('rent_payments')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('lease_id', 'in', w.api.db.selectFrom('leases').select('id').where('reference', '=', lease.reference))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(4);
  });
});

describe('GET /rent-payments', () => {
  it('filters by lease and status, and pulls a month of receipts and of reversals by booked_on and bounced_on', async () => {
    const lease = await l.draft();
    const [jan, feb, mar, apr] = l.paymentIds(lease) as [string, string, string, string];
    w.api.clock.set(at('2027-01-31'));
    await l.changePayment(jan, { status: 'received' });
    w.api.clock.set(at('2027-02-01'));
    await l.changePayment(feb, { status: 'received' });
    await l.changePayment(mar, { status: 'received' });
    w.api.clock.set(at('2027-03-01'));
    await l.changePayment(jan, { status: 'bounced' });
    await l.changePayment(apr, { status: 'cancelled' });
    const ids = (rows: Array<Record<string, unknown>>) => rows.map((r) => r.payment_id).sort();
    const mine = `lease=${lease.reference}`;
    expect(ids(await all(mine))).toEqual([jan, feb, mar, apr].sort());
    expect(ids(await all(`${mine}&status=received`))).toEqual([feb, mar].sort());
    expect(ids(await all(`${mine}&booked_from=2027-01-01&booked_to=2027-01-31`))).toEqual([jan]);
    expect(ids(await all(`${mine}&booked_from=2027-02-01&booked_to=2027-02-28`))).toEqual([feb, mar].sort());
    expect(ids(await all(`${mine}&bounced_from=2027-03-01&bounced_to=2027-03-31`))).toEqual([jan]);
    expect(ids(await all(`${mine}&bounced_to=2027-02-28`))).toEqual([]);
    expect(await all('lease=T-UNKNOWN00')).toEqual([]);
  });

  it('refuses a range that ends before it starts, impossible days and unknown parameters with 400', async () => {
    for (const query of [
      'booked_from=2027-02-01&booked_to=2027-01-31',
      'bounced_from=2027-02-01&bounced_to=2027-01-31',
      'booked_from=2027-02-30',
      'booked_to=3000-01-01',
      'status=overdue',
      'month=2027-01',
    ]) {
      const res = await l.payments(query);
      expect(res.response.status, query).toBe(400);
      expect(res.response.headers.get('content-type')).toContain('application/problem+json');
    }
  });

  it('audits every payment read, by payment id', async () => {
    const lease = await l.draft();
    const ids = l.paymentIds(lease);
    await l.payments(`lease=${lease.reference}`);
    await l.payment(ids[0] as string);
    const rows = await w.api.db
      .selectFrom('audit_log')
      .select('details')
      .where('company_id', '=', w.company.id)
      .where('action', '=', 'personal_data.read')
      .execute();
    const reads = rows.map((r) => r.details as { route: string; references: string[] });
    expect(reads).toContainEqual({ route: 'GET /api/v1/rent-payments', references: expect.arrayContaining(ids) });
    expect(reads).toContainEqual({ route: 'GET /api/v1/rent-payments/:payment_id', references: [ids[0]] });
  });
});

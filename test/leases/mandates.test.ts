import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { testClient } from '../support/client';
import { leasesOf, useClients, useWorld, validIban as iban } from '../support/world';

const w = useWorld();
const l = leasesOf(w);
// A company in Kuwaiti dinars (three minor digits), on the same API: also "another company" for the AED one.
const k = useWorld(() => ({ api: w.api, company: { currency: 'KWD', time_zone: 'Asia/Kuwait' } }));
const kl = leasesOf(k);
const [reads] = useClients(w, ['read:leases']);
afterEach(() => w.api.clock.set(null));

/** A new mandate on `lease`, as answered (throws when refused), and activated when `active`. */
async function mandateOn(reference: string, options: { active?: boolean; body?: Record<string, unknown> } = {}) {
  const { data, error } = await l.addMandate(reference, l.mandateBody(options.body));
  if (!data) throw new Error(`mandate not added: ${JSON.stringify(error)}`);
  if (!options.active) return data;
  const activated = await l.changeMandate(data.mandate_id, { status: 'active' });
  if (!activated.data) throw new Error(`mandate not activated: ${JSON.stringify(activated.error)}`);
  return activated.data;
}

/** Whether any row of any table of the public schema holds `needle` in its text. */
async function tablesHolding(needle: string): Promise<string[]> {
  const { rows } = await sql<{ table_name: string }>`
    select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'
  `.execute(w.api.db);
  const holding: string[] = [];
  for (const { table_name } of rows) {
    const found = await sql<{ found: boolean }>`
      select exists (select from ${sql.table(table_name)} t where t::text like ${`%${needle}%`}) as found
    `.execute(w.api.db);
    if (found.rows[0]?.found) holding.push(table_name);
  }
  return holding;
}

describe('POST /leases/{reference}/rent-mandates', () => {
  it('records a pending mandate: the IBAN sealed, shown by its last four characters, nowhere in clear', async () => {
    const errors = vi.spyOn(console, 'error');
    const logs = vi.spyOn(console, 'log');
    const lease = await l.draft();
    const body = l.mandateBody({
      iban: iban()
        .replace(/(.{4})/g, '$1 ')
        .trim()
        .toLowerCase(),
    });
    const sent = (body.iban as string).replaceAll(' ', '').toUpperCase();
    const made = await l.addMandate(lease.reference, body);
    expect(made.response.status, JSON.stringify(made.error)).toBe(201);
    expect(made.data).toMatchObject({
      lease: lease.reference,
      mandate_reference: body.mandate_reference,
      status: 'pending',
      bank: { name: 'Emirates NBD', code: '026' },
      account_holder: 'Renter Holder',
      iban_last4: sent.slice(-4),
      max_amount: '30000.00',
      starts_on: '2027-01-01',
      ends_on: '2027-12-31',
      activated_at: null,
    });
    const id = made.data?.mandate_id as string;
    expect(JSON.stringify(made.data)).not.toContain(sent.slice(4, -4));
    const read = await l.mandate(id);
    expect(read.data).toEqual(made.data);
    expect(read.response.headers.get('etag')).toMatch(/^"v\d+"$/);
    // The event: ids only; the audit rows: the creation and each personal read, never the account.
    const events = await w.allEvents();
    const event = events.find((e) => e.data.mandate_id === id);
    expect(event).toMatchObject({ type: 'rent_mandate.created', data: { mandate_id: id, lease_reference: lease.reference } });
    const audit = await w.api.db
      .selectFrom('audit_log')
      .select(['action', 'subject', 'details'])
      .where('company_id', '=', w.company.id)
      .where(sql<boolean>`subject = ${id} or details::text like ${`%${id}%`}`)
      .execute();
    expect(audit.map((a) => a.action).sort()).toEqual(['personal_data.read', 'personal_data.read', 'rent_mandate.created']);
    // The whole IBAN (and its account part) is in no table, no answer, no log line.
    expect(await tablesHolding(sent)).toEqual([]);
    expect(await tablesHolding(sent.slice(4))).toEqual([]);
    const stored = await w.api.db
      .selectFrom('rent_mandates')
      .select(['iban_jwe', 'iban_last4'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(stored.iban_jwe?.split('.')).toHaveLength(5);
    const logged = JSON.stringify([...errors.mock.calls, ...logs.mock.calls]);
    expect(logged).not.toContain(sent.slice(4));
    errors.mockRestore();
    logs.mockRestore();
  });

  it('answers the mandate recorded before for the same reference on the same lease; another lease’s is 409', async () => {
    const lease = await l.draft();
    const other = await l.draft();
    const body = l.mandateBody();
    const first = await l.addMandate(lease.reference, body);
    expect(first.response.status).toBe(201);
    const again = await l.addMandate(lease.reference, { ...body, iban: iban() });
    expect(again.response.status).toBe(200);
    expect(again.data).toEqual(first.data);
    const elsewhere = await l.addMandate(other.reference, body);
    expect(elsewhere.response.status).toBe(409);
    expect(elsewhere.error?.code).toBe('mandate_reference_taken');
    const created = (await w.allEvents()).filter((e) => e.data.mandate_id === first.data?.mandate_id);
    expect(created.map((e) => e.type)).toEqual(['rent_mandate.created']);
  });

  it('refuses a bad IBAN, an end before the start, no maximum, an unknown or ended lease; nothing is recorded', async () => {
    const lease = await l.draft();
    const good = iban();
    const wrongCheck = `${good.slice(0, 2)}${good[2] === '9' ? '0' : String(Number(good[2]) + 1)}${good.slice(3)}`;
    for (const [body, path] of [
      [{ iban: wrongCheck }, 'iban'],
      [{ iban: 'AE07 not an iban' }, 'iban'],
      [{ ends_on: '2026-12-31' }, 'ends_on'],
      [{ max_amount: '0' }, 'max_amount'],
      [{ max_amount: '-5' }, 'max_amount'],
      [{ max_amount: '10.001' }, 'max_amount'],
      [{ bank: { code: '026' } }, 'bank.name'],
    ] as const) {
      const res = await l.addMandate(lease.reference, l.mandateBody(body));
      expect(res.response.status, JSON.stringify(body)).toBe(400);
      expect(res.response.headers.get('content-type')).toContain('application/problem+json');
      expect(
        res.error?.errors?.map((e) => e.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    expect((await l.addMandate('T-UNKNOWN0000', l.mandateBody())).response.status).toBe(404);
    const ended = await l.active();
    await l.end(ended.reference, { ended_on: '2027-06-30', deposit: { outcome: 'returned' } });
    const late = await l.addMandate(ended.reference, l.mandateBody());
    expect(late.response.status).toBe(409);
    expect(late.error?.code).toBe('invalid_transition');
    expect((await l.mandates(`lease=${lease.reference}`)).data?.results).toEqual([]);
  });
});

describe('PATCH /rent-mandates/{mandate_id}', () => {
  it('activates a pending mandate once; then cancels it; any other move is 409 invalid_transition', async () => {
    const lease = await l.draft();
    const mandate = await mandateOn(lease.reference);
    w.api.clock.set(new Date('2027-01-03T08:00:00Z'));
    const active = await l.changeMandate(mandate.mandate_id, { status: 'active' });
    expect(active.response.status, JSON.stringify(active.error)).toBe(200);
    expect(active.data).toMatchObject({ status: 'active', activated_at: '2027-01-03T08:00:00.000Z' });
    const again = await l.changeMandate(mandate.mandate_id, { status: 'active' });
    expect(again.data?.updated_at).toBe(active.data?.updated_at);
    const rejected = await l.changeMandate(mandate.mandate_id, { status: 'rejected' });
    expect(rejected.response.status).toBe(409);
    expect(rejected.error).toMatchObject({ code: 'invalid_transition', allowed: ['cancelled', 'expired'] });
    const cancelled = await l.changeMandate(mandate.mandate_id, { status: 'cancelled' });
    expect(cancelled.data).toMatchObject({ status: 'cancelled', cancelled_at: '2027-01-03T08:00:00.000Z' });
    const revived = await l.changeMandate(mandate.mandate_id, { status: 'active' });
    expect(revived.response.status).toBe(409);
    expect(revived.error).toMatchObject({ code: 'invalid_transition', allowed: [] });
    const types = (await w.allEvents()).filter((e) => e.data.mandate_id === mandate.mandate_id).map((e) => e.type);
    expect(types).toEqual(['rent_mandate.created', 'rent_mandate.activated', 'rent_mandate.cancelled']);
    const audit = await w.api.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('subject', '=', mandate.mandate_id)
      .orderBy('id')
      .execute();
    expect(audit.map((a) => [a.action, a.details.status])).toEqual([
      ['rent_mandate.created', 'pending'],
      ['rent_mandate.activated', 'active'],
      ['rent_mandate.cancelled', 'cancelled'],
    ]);
  });

  it('rejects a pending mandate and expires an active one; the database refuses a change of terms', async () => {
    const lease = await l.draft();
    const pending = await mandateOn(lease.reference);
    expect((await l.changeMandate(pending.mandate_id, { status: 'rejected' })).data?.status).toBe('rejected');
    const active = await mandateOn(lease.reference, { active: true });
    expect((await l.changeMandate(active.mandate_id, { status: 'expired' })).data?.status).toBe('expired');
    const changed = sql`update rent_mandates set max_amount = 1 where id = ${active.mandate_id}::uuid`.execute(w.api.db);
    await expect(changed).rejects.toThrow(/keeps its terms/);
    const back = sql`update rent_mandates set status = 'active' where id = ${active.mandate_id}::uuid`.execute(w.api.db);
    await expect(back).rejects.toThrow(/cannot go from expired to active/);
  });
});

describe('rent payments collected by direct debit', () => {
  it('collects a payment under an active mandate: received, bounced, replaced and collected again', async () => {
    const lease = await l.draft();
    const [first, second] = l.paymentIds(lease) as [string, string];
    const mandate = await mandateOn(lease.reference, { active: true });
    const named = await l.changePayment(first, { direct_debit: { mandate: mandate.mandate_id } });
    expect(named.response.status, JSON.stringify(named.error)).toBe(200);
    expect(named.data).toMatchObject({ method: 'direct_debit', direct_debit: { mandate: mandate.mandate_id }, cheque: null });
    w.api.clock.set(new Date('2027-01-02T06:00:00Z'));
    const received = await l.changePayment(first, { status: 'received' });
    expect(received.data).toMatchObject({ status: 'received', booked_on: '2027-01-02', method: 'direct_debit' });
    w.api.clock.set(new Date('2027-01-05T06:00:00Z'));
    const bounced = await l.changePayment(first, { status: 'bounced' });
    expect(bounced.data).toMatchObject({ status: 'bounced', bounced_on: '2027-01-05', method: 'direct_debit' });
    expect(await l.paymentEvents(first)).toEqual(['rent_payment.received', 'rent_payment.bounced']);
    // Presented again under the same mandate, as a bounced cheque is replaced.
    const replacement = await l.replace({
      replaces: first,
      due_on: '2027-01-15',
      amount: '30000',
      direct_debit: { mandate: mandate.mandate_id },
    });
    expect(replacement.response.status, JSON.stringify(replacement.error)).toBe(201);
    expect(replacement.data).toMatchObject({ status: 'due', replaces: first, method: 'direct_debit' });
    const collected = await l.changePayment(replacement.data?.payment_id as string, { status: 'received' });
    expect(collected.data).toMatchObject({ status: 'received', booked_on: '2027-01-05' });
    // A payment moves from the mandate to a cheque and back; the settled one keeps its mandate.
    const cheque = await l.changePayment(second, { cheque: { number: '000124', bank: 'Mashreq' } });
    expect(cheque.data).toMatchObject({ method: 'cheque', direct_debit: null });
    const back = await l.changePayment(second, { direct_debit: { mandate: mandate.mandate_id } });
    expect(back.data).toMatchObject({ method: 'direct_debit', cheque: null });
    const settled = await l.changePayment(first, { direct_debit: null });
    expect(settled.error?.code).toBe('payment_bounced');
    const moved = sql`update rent_payments set mandate_id = null where id = ${replacement.data?.payment_id}::uuid`.execute(
      w.api.db,
    );
    await expect(moved).rejects.toThrow(/keeps it/);
  });

  it('refuses a mandate pending or cancelled, of another lease or company, below the amount or outside the due day', async () => {
    const lease = await l.draft();
    const other = await l.draft();
    const [id, second] = l.paymentIds(lease) as [string, string];
    const pending = await mandateOn(lease.reference);
    const cancelled = await mandateOn(lease.reference, { active: true });
    await l.changeMandate(cancelled.mandate_id, { status: 'cancelled' });
    const small = await mandateOn(lease.reference, { active: true, body: { max_amount: '29999.99' } });
    const short = await mandateOn(lease.reference, { active: true, body: { ends_on: '2027-01-31' } });
    const othersLease = await mandateOn(other.reference, { active: true });
    const foreignLease = await kl.draft();
    const foreign = (await kl.addMandate(foreignLease.reference, l.mandateBody({ max_amount: '100.000' }))).data;
    for (const [mandate, status, code, path] of [
      [pending.mandate_id, 409, 'mandate_not_active', 'direct_debit.mandate'],
      [cancelled.mandate_id, 409, 'mandate_not_active', 'direct_debit.mandate'],
      [othersLease.mandate_id, 409, 'mandate_other_lease', 'direct_debit.mandate'],
      [small.mandate_id, 409, 'mandate_amount_exceeded', 'amount'],
      [foreign?.mandate_id, 400, 'unknown_reference', 'direct_debit.mandate'],
      ['not-a-uuid', 400, 'unknown_reference', 'direct_debit.mandate'],
    ] as const) {
      const res = await l.changePayment(id, { direct_debit: { mandate } });
      expect(res.response.status, code).toBe(status);
      expect(res.error?.code).toBe(status === 409 ? 'mandate_unusable' : 'invalid_request');
      expect(res.error?.errors?.[0]).toMatchObject({ code, path });
    }
    // The first payment is due on 1 January, the second on 1 April: outside the short mandate's month.
    const outside = await l.changePayment(second, { direct_debit: { mandate: short.mandate_id } });
    expect(outside.error?.errors?.[0]).toMatchObject({ code: 'mandate_period', path: 'due_on' });
    expect((await l.changePayment(id, { direct_debit: { mandate: short.mandate_id } })).response.status).toBe(200);
    // Under a mandate, a larger amount or a later day is refused too; both methods at once is 400.
    const larger = await l.changePayment(id, { amount: '30000.01' });
    expect(larger.error?.errors?.[0]).toMatchObject({ code: 'mandate_amount_exceeded' });
    const later = await l.changePayment(id, { due_on: '2027-02-01' });
    expect(later.error?.errors?.[0]).toMatchObject({ code: 'mandate_period' });
    const both = await l.changePayment(id, { cheque: { number: '1', bank: 'B' }, direct_debit: { mandate: short.mandate_id } });
    expect(both.response.status).toBe(400);
    // A replacement names its mandate under the same rules.
    await l.changePayment(second, { status: 'bounced' });
    const replaced = await l.replace({
      replaces: second,
      due_on: '2027-04-20',
      amount: '100',
      direct_debit: { mandate: pending.mandate_id },
    });
    expect(replaced.error?.errors?.[0]).toMatchObject({ code: 'mandate_not_active' });
    const payment = (await l.payment(id)).data;
    expect(payment).toMatchObject({ amount: '30000.00', due_on: '2027-01-01', direct_debit: { mandate: short.mandate_id } });
    // A payment still due keeps a mandate cancelled after it was named, and is still received.
    await l.changeMandate(short.mandate_id, { status: 'cancelled' });
    expect((await l.changePayment(id, { status: 'received' })).data).toMatchObject({
      status: 'received',
      method: 'direct_debit',
    });
  });
});

describe('access', () => {
  it('keeps each company’s mandates to itself: another company’s key finds none of them', async () => {
    const lease = await l.draft();
    const mandate = await mandateOn(lease.reference);
    expect(
      (await k.client.GET('/api/v1/rent-mandates/{mandate_id}', { params: { path: { mandate_id: mandate.mandate_id } } }))
        .response.status,
    ).toBe(404);
    const patched = await k.client.PATCH('/api/v1/rent-mandates/{mandate_id}', {
      params: { path: { mandate_id: mandate.mandate_id } },
      body: { status: 'active' },
    });
    expect(patched.response.status).toBe(404);
    const onLease = await k.client.POST('/api/v1/leases/{reference}/rent-mandates', {
      params: { path: { reference: lease.reference } },
      body: l.mandateBody() as never,
    });
    expect(onLease.response.status).toBe(404);
    const listed = await k.client.GET('/api/v1/rent-mandates', {});
    expect(listed.data?.results.map((m) => m.mandate_id)).not.toContain(mandate.mandate_id);
    expect((await l.mandate(mandate.mandate_id)).data?.status).toBe('pending');
  });

  it('lets a read:leases key read mandates but not write them (403 scope_missing)', async () => {
    const lease = await l.draft();
    const mandate = await mandateOn(lease.reference);
    const one = await reads.GET('/api/v1/rent-mandates/{mandate_id}', { params: { path: { mandate_id: mandate.mandate_id } } });
    expect(one.data?.mandate_id).toBe(mandate.mandate_id);
    const list = await reads.GET('/api/v1/rent-mandates', { params: { query: { lease: lease.reference } } });
    expect(list.data?.results.map((m) => m.mandate_id)).toEqual([mandate.mandate_id]);
    const add = await reads.POST('/api/v1/leases/{reference}/rent-mandates', {
      params: { path: { reference: lease.reference } },
      body: l.mandateBody() as never,
    });
    expect(add.response.status).toBe(403);
    expect(add.error?.code).toBe('scope_missing');
    const patch = await reads.PATCH('/api/v1/rent-mandates/{mandate_id}', {
      params: { path: { mandate_id: mandate.mandate_id } },
      body: { status: 'active' },
    });
    expect(patch.response.status).toBe(403);
    expect((await l.mandate(mandate.mandate_id)).data?.status).toBe('pending');
    const anonymous = testClient(w.api, { host: w.company.host });
    expect((await anonymous.GET('/api/v1/rent-mandates', {})).response.status).toBe(403);
  });

  it('lists by lease and status in sync order', async () => {
    const lease = await l.draft();
    const a = await mandateOn(lease.reference);
    const b = await mandateOn(lease.reference, { active: true });
    const all = await l.mandates(`lease=${lease.reference}`);
    expect(all.data?.results.map((m) => m.mandate_id)).toEqual([a.mandate_id, b.mandate_id]);
    const active = await l.mandates(`lease=${lease.reference}&status=active`);
    expect(active.data?.results.map((m) => m.mandate_id)).toEqual([b.mandate_id]);
    expect((await l.mandates('status=unknown')).response.status).toBe(400);
  });
});

describe('a company in Kuwaiti dinars (three minor digits)', () => {
  it('keeps the mandate’s maximum and the collection’s amount to the fils, compared exactly', async () => {
    const lease = await kl.draft({ rent: { amount: '4937.004', period: 'year' }, schedule: { payments: 4 } });
    const ids = kl.paymentIds(lease);
    const amounts = lease.schedule.rows.map((r) => r.amount);
    expect(amounts).toEqual(['1234.251', '1234.251', '1234.251', '1234.251']);
    const made = await kl.addMandate(lease.reference, l.mandateBody({ max_amount: '1234.251' }));
    expect(made.data?.max_amount).toBe('1234.251');
    const id = made.data?.mandate_id as string;
    await kl.changeMandate(id, { status: 'active' });
    const first = ids[0] as string;
    const named = await kl.changePayment(first, { direct_debit: { mandate: id } });
    expect(named.response.status, JSON.stringify(named.error)).toBe(200);
    const above = await kl.changePayment(first, { amount: '1234.252' });
    expect(above.error?.errors?.[0]).toMatchObject({ code: 'mandate_amount_exceeded', path: 'amount' });
    expect(above.error?.detail).toContain('1234.252');
    expect(above.error?.detail).toContain('1234.251');
    const fourDigits = await kl.addMandate(lease.reference, l.mandateBody({ max_amount: '1.2345' }));
    expect(fourDigits.error?.errors?.[0]).toMatchObject({ code: 'currency_digits', path: 'max_amount' });
    expect((await kl.changePayment(first, { status: 'received' })).data).toMatchObject({
      status: 'received',
      amount: '1234.251',
    });
  });
});

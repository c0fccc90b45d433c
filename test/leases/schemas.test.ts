import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EndInput, FeeInput, LeaseInput, NoticeInput, ScheduleInput } from '../../schema/leases/leases';
import { RentPaymentsQuery } from '../../schema/leases/rent-payments';
import { createTestApi, type TestApi } from '../support/harness';
import { adminOf, createCompany } from '../support/world';

/**
 * What a lease request may say (schema/leases/), and the company settings behind the lease warnings, as the admin API
 * takes them (schema/platform/admin.ts).
 */

const lease = {
  home: 'marina-2br-apartment-lease',
  renter: 'P-7K3M9Q2XAB',
  landlord: 'P-9Q2XAB7K3M',
  term: { start: '2027-01-01', end: '2027-12-31' },
  rent: { amount: '120000.00', period: 'year' },
  schedule: { payments: 4 },
};
/** The paths of a failed parse. */
const refused = (result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[] }> } }) =>
  result.success ? [] : (result.error?.issues ?? []).map((i) => i.path.join('.'));

describe('lease requests', () => {
  it('take a lease with its schedule as a number of payments or as cheques, deposit 0 by default', () => {
    expect(LeaseInput.parse(lease).deposit).toBe('0');
    const cheques = { rows: [{ due_on: '2027-01-01', amount: '60000', cheque: { number: '000123', bank: 'Emirates NBD' } }] };
    expect(LeaseInput.safeParse({ ...lease, schedule: cheques }).success).toBe(true);
  });

  it('refuse a text where an amount goes without reading it as a number (a 500 before: [big.js] Invalid number)', () => {
    for (const value of ['abc', '1e999', 'NaN', '', '1.2.3', '9'.repeat(400)]) {
      expect(refused(FeeInput.safeParse({ kind: 'percent', value }))).toEqual(['value']);
      const deposit = { outcome: 'returned_with_deductions', deductions: value, reason: 'x' };
      expect(refused(EndInput.safeParse({ deposit }))).toEqual(['deposit.deductions']);
      expect(refused(LeaseInput.safeParse({ ...lease, fee: { kind: 'percent', value } }))).toEqual(['fee.value']);
    }
  });

  it('refuse what a lease cannot be', () => {
    expect(refused(LeaseInput.safeParse({ ...lease, landlord: lease.renter }))).toEqual(['landlord']);
    expect(refused(LeaseInput.safeParse({ ...lease, term: { start: '2027-01-01', end: '2026-12-31' } }))).toEqual(['term.end']);
    expect(refused(LeaseInput.safeParse({ ...lease, term: { start: '1899-12-31', end: '2027-12-31' } }))).toEqual(['term.start']);
    expect(refused(LeaseInput.safeParse({ ...lease, rent: { amount: 120000, period: 'year' } }))).toEqual(['rent.amount']);
    // More than 4 digits after the point no currency has (ISO 4217); the currency's own digits are lib/money.ts's check.
    expect(refused(LeaseInput.safeParse({ ...lease, rent: { amount: '1.23456', period: 'year' } }))).toEqual(['rent.amount']);
    expect(refused(LeaseInput.safeParse({ ...lease, rent: { amount: '1', period: 'week' } }))).toEqual(['rent.period']);
    expect(refused(LeaseInput.safeParse({ ...lease, status: 'active' }))).toEqual(['']);
  });

  it('take a schedule of 1 to 120 payments or rows, a cheque with its number and bank', () => {
    expect(ScheduleInput.safeParse({ payments: 0 }).success).toBe(false);
    expect(ScheduleInput.safeParse({ payments: 121 }).success).toBe(false);
    expect(ScheduleInput.safeParse({ payments: 12, rows: [] }).success).toBe(false);
    expect(ScheduleInput.safeParse({ rows: [] }).success).toBe(false);
    expect(ScheduleInput.safeParse({ rows: [{ due_on: '2027-01-01', amount: '1', cheque: { number: '1' } }] }).success).toBe(
      false,
    );
  });

  it('take a fee as a percentage up to 100 or a fixed amount', () => {
    expect(FeeInput.safeParse({ kind: 'percent', value: '100' }).success).toBe(true);
    expect(refused(FeeInput.safeParse({ kind: 'percent', value: '100.01' }))).toEqual(['value']);
    expect(FeeInput.safeParse({ kind: 'fixed', value: '2500.00' }).success).toBe(true);
  });

  it('take a vacate notice with its day of leaving, other notices with a proposed rent', () => {
    expect(NoticeInput.safeParse({ by: 'renter', intent: 'vacate', vacate_on: '2027-10-31' }).success).toBe(true);
    expect(NoticeInput.safeParse({ by: 'landlord', intent: 'rent_change', proposed_rent: '130000' }).success).toBe(true);
    expect(refused(NoticeInput.safeParse({ by: 'landlord', intent: 'renew', vacate_on: '2027-10-31' }))).toEqual(['vacate_on']);
    expect(refused(NoticeInput.safeParse({ by: 'renter', intent: 'vacate', proposed_rent: '1' }))).toEqual(['proposed_rent']);
    expect(refused(NoticeInput.safeParse({ by: 'tenant', intent: 'vacate' }))).toEqual(['by']);
  });

  it('end a lease with the deposit’s outcome, deductions with their amount and reason only', () => {
    expect(EndInput.safeParse({ deposit: { outcome: 'returned' } }).success).toBe(true);
    const deducted = { outcome: 'returned_with_deductions', deductions: '1500', reason: 'Repainting' };
    expect(EndInput.safeParse({ ended_on: '2027-12-31', deposit: deducted }).success).toBe(true);
    expect(refused(EndInput.safeParse({ deposit: { outcome: 'returned_with_deductions', reason: 'x' } }))).toEqual([
      'deposit.deductions',
    ]);
    expect(refused(EndInput.safeParse({ deposit: { outcome: 'kept', deductions: '1' } }))).toEqual(['deposit.deductions']);
    expect(refused(EndInput.safeParse({ deposit: { ...deducted, deductions: '0.00' } }))).toEqual(['deposit.deductions']);
    expect(refused(EndInput.safeParse({}))).toEqual(['deposit']);
  });

  it('filter the export by ranges of booked_on and bounced_on, each ending on or after it starts', () => {
    const month = { booked_from: '2027-03-01', booked_to: '2027-03-31' };
    expect(RentPaymentsQuery.safeParse(month).success).toBe(true);
    expect(refused(RentPaymentsQuery.safeParse({ ...month, booked_to: '2027-02-28' }))).toEqual(['booked_to']);
    expect(refused(RentPaymentsQuery.safeParse({ bounced_from: '2027-03-02', bounced_to: '2027-03-01' }))).toEqual([
      'bounced_to',
    ]);
    expect(refused(RentPaymentsQuery.safeParse({ status: 'overdue' }))).toEqual(['status']);
  });
});

describe('the lease settings of a company (admin API)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await createTestApi();
  }, 60_000);
  afterAll(() => api.close());

  it('are kept as given, null switching a check off', async () => {
    const settings = {
      lease_notice_days: 60,
      lease_rent_cap_percent: null,
      lease_deposit_percent: '10',
      lease_schedule_tolerance: '1.50',
      rent_grace_days: 0,
    };
    const company = await createCompany(api, { settings });
    const res = await adminOf(api).GET('/admin/v1/companies/{company_id}', { params: { path: { company_id: company.id } } });
    expect(res.data?.settings).toEqual(settings);
  });

  it.each([
    [{ lease_notice_days: -1 }, 'settings.lease_notice_days'],
    [{ lease_rent_cap_percent: 5 }, 'settings.lease_rent_cap_percent'],
    [{ lease_deposit_percent: '1000' }, 'settings.lease_deposit_percent'],
    [{ lease_schedule_tolerance: null }, 'settings.lease_schedule_tolerance'],
    [{ rent_grace_days: 366 }, 'settings.rent_grace_days'],
  ])('refuse %j', async (settings, path) => {
    const company = await createCompany(api);
    const res = await adminOf(api).PATCH('/admin/v1/companies/{company_id}', {
      params: { path: { company_id: company.id } },
      body: { settings } as never,
    });
    expect(res.response.status).toBe(400);
    expect(res.error?.errors?.map((e) => e.path)).toEqual([path]);
  });
});

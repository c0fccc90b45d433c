import Big from 'big.js';
import { addDays } from '../../lib/dates';
import { storedDigits } from '../../lib/money';
import type { CompanySettings } from '../../schema/platform/db';
import type { RentPaymentStatus } from '../../schema/leases/db';

/**
 * The company's lease rules (its settings, each with the default documented in docs/api-reference.md, "Leases and rent
 * payments") and the money rules of its currency.
 */
export type LeaseRules = {
  /** Digits after the point amounts are kept to. */
  digits: number;
  noticeDays: number;
  rentCapPercent: Big | null;
  depositPercent: Big | null;
  tolerance: Big;
  graceDays: number;
};

export const leaseDefaults = {
  lease_notice_days: 90,
  lease_rent_cap_percent: '5',
  lease_deposit_percent: '5',
  lease_schedule_tolerance: '0',
  rent_grace_days: 5,
} as const;

const percent = (value: string | null | undefined, fallback: string) => (value === null ? null : new Big(value ?? fallback));

export function leaseRules(company: { currency: string; settings: CompanySettings }): LeaseRules {
  const { settings } = company;
  return {
    digits: storedDigits(company.currency),
    noticeDays: settings.lease_notice_days ?? leaseDefaults.lease_notice_days,
    rentCapPercent: percent(settings.lease_rent_cap_percent, leaseDefaults.lease_rent_cap_percent),
    depositPercent: percent(settings.lease_deposit_percent, leaseDefaults.lease_deposit_percent),
    tolerance: new Big(settings.lease_schedule_tolerance ?? leaseDefaults.lease_schedule_tolerance),
    graceDays: settings.rent_grace_days ?? leaseDefaults.rent_grace_days,
  };
}

export { type Fee, feeAmount } from '../../lib/rent-receipts';

/** The first day a payment still due counts as overdue: the day after its due date plus the grace days. */
export function overdueFrom(dueOn: string, graceDays: number): string {
  return addDays(dueOn, graceDays + 1);
}

/** Whether a payment is overdue on `today` (the company's date): still due, and its grace days over. */
export function isOverdue(payment: { status: RentPaymentStatus; due_on: string }, graceDays: number, today: string): boolean {
  return payment.status === 'due' && today >= overdueFrom(payment.due_on, graceDays);
}

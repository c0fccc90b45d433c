import type { z } from '@hono/zod-openapi';
import Big from 'big.js';
import { iso } from '../../lib/dates';
import { amountOut } from '../../lib/money';
import { closingOf, type RecordedClosings } from '../../lib/statement-months';
import type { LineKind } from '../../schema/statements/db';
import type { MonthSchema, StatementSchema, StatementTotalsSchema } from '../../schema/statements/statements';
import type { Company } from '../../schema/platform/db';
import type { LineRow, MonthRow, StatementData } from './statements';

export type StatementView = z.infer<typeof StatementSchema>;
export type TotalsView = z.infer<typeof StatementTotalsSchema>;
export type MonthView = z.infer<typeof MonthSchema>;

/** Which total each kind of line adds to, and whether as itself or as a positive amount. */
type TotalName =
  | 'rent_received'
  | 'rent_reversed'
  | 'fees'
  | 'fees_reversed'
  | 'job_charges'
  | 'job_charges_cancelled'
  | 'rent_vat'
  | 'rent_vat_reversed'
  | 'bookings_received'
  | 'bookings_refunded';

const totalOf: Record<LineKind, TotalName> = {
  rent_received: 'rent_received',
  rent_reversed: 'rent_reversed',
  fee: 'fees',
  fee_reversed: 'fees_reversed',
  job_charge: 'job_charges',
  job_charge_cancelled: 'job_charges_cancelled',
  rent_vat: 'rent_vat',
  rent_vat_reversed: 'rent_vat_reversed',
  booking_received: 'bookings_received',
  booking_refunded: 'bookings_refunded',
};

const money = (value: Big, currency: string) => amountOut(value.toString(), currency) as string;

/**
 * The month's totals per currency (alphabetical): each kind's sum as a positive amount, the signed net, and the
 * balance carried in and out when the company keeps one. The only place a statement's amounts are added up: the JSON
 * answer and the printable page both show this.
 */
export function statementTotals(lines: LineRow[], opening: Map<string, string> | null): TotalsView[] {
  const currencies = new Set([...lines.map((line) => line.currency), ...(opening?.keys() ?? [])]);
  return [...currencies].sort().map((currency) => {
    const sums: Record<TotalName, Big> = {
      rent_received: new Big(0),
      rent_reversed: new Big(0),
      fees: new Big(0),
      fees_reversed: new Big(0),
      job_charges: new Big(0),
      job_charges_cancelled: new Big(0),
      rent_vat: new Big(0),
      rent_vat_reversed: new Big(0),
      bookings_received: new Big(0),
      bookings_refunded: new Big(0),
    };
    // The VAT in the fees (and in those returned): shown, not added to the net again (it is in the fees' amounts).
    let feesVat = new Big(0);
    let feesVatReversed = new Big(0);
    // The VAT in rents whose VAT the owner accounts for (the company their disclosed agent): in the rent, theirs to declare.
    let ownersVat = new Big(0);
    let ownersVatReversed = new Big(0);
    let net = new Big(0);
    for (const line of lines) {
      if (line.currency !== currency) continue;
      const amount = new Big(line.amount);
      sums[totalOf[line.kind]] = sums[totalOf[line.kind]].plus(amount.abs());
      if (line.kind === 'fee' && line.vat !== null) feesVat = feesVat.plus(new Big(line.vat).abs());
      if (line.kind === 'fee_reversed' && line.vat !== null) feesVatReversed = feesVatReversed.plus(new Big(line.vat).abs());
      if (line.rent_vat_accounted_by === 'owner' && line.vat !== null) {
        if (line.kind === 'rent_received') ownersVat = ownersVat.plus(new Big(line.vat).abs());
        if (line.kind === 'rent_reversed') ownersVatReversed = ownersVatReversed.plus(new Big(line.vat).abs());
      }
      net = net.plus(amount);
    }
    const carried = opening === null ? null : new Big(opening.get(currency) ?? '0');
    return {
      currency,
      rent_received: money(sums.rent_received, currency),
      rent_reversed: money(sums.rent_reversed, currency),
      fees: money(sums.fees, currency),
      fees_reversed: money(sums.fees_reversed, currency),
      job_charges: money(sums.job_charges, currency),
      job_charges_cancelled: money(sums.job_charges_cancelled, currency),
      rent_vat: money(sums.rent_vat, currency),
      rent_vat_reversed: money(sums.rent_vat_reversed, currency),
      fees_vat: money(feesVat, currency),
      fees_vat_reversed: money(feesVatReversed, currency),
      rent_vat_for_owner: money(ownersVat, currency),
      rent_vat_for_owner_reversed: money(ownersVatReversed, currency),
      bookings_received: money(sums.bookings_received, currency),
      bookings_refunded: money(sums.bookings_refunded, currency),
      net: money(net, currency),
      opening_balance: carried === null ? null : money(carried, currency),
      closing_balance: carried === null ? null : money(carried.plus(net), currency),
    };
  });
}

export function presentLine(line: LineRow) {
  return {
    kind: line.kind,
    day: line.day,
    amount: amountOut(line.amount, line.currency) as string,
    currency: line.currency,
    lease: line.lease,
    home: line.home,
    payment_id: line.payment_id,
    charge_id: line.charge_id,
    job: line.job,
    method: line.method,
    online_payment: line.online_payment,
    booking: line.booking,
    refund: line.refund,
    tax_category: line.tax_category,
    net: line.vat === null ? null : money(new Big(line.amount).minus(line.vat), line.currency),
    vat: line.vat === null ? null : money(new Big(line.vat), line.currency),
  };
}

/** A statement as the API answers it, and as the printable page shows it. */
export function presentStatement(data: StatementData): StatementView {
  return {
    owner: data.owner.reference,
    owner_name: data.owner.name,
    company_name: data.company.name,
    month: data.span.month,
    from: data.span.from,
    to: data.span.to,
    status: data.closing.status,
    closes_on: data.closing.closes_on,
    lines: data.lines.map(presentLine),
    totals: statementTotals(data.lines, data.opening),
  };
}

export function presentMonths(company: Company, rows: MonthRow[], closings: RecordedClosings, now: Date): MonthView[] {
  return rows.map((row) => ({
    owner: row.owner,
    month: row.month,
    ...closingOf(company, row.month, now, closings),
    ready_at: iso(row.announced_at),
  }));
}

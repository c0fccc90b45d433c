import Big from 'big.js';
import { daysBetween, eachDate, weekdayOf } from '../dates';
import { ApiError } from '../errors';
import { formatAmount } from '../money';
import { chargesVatOn, lineTax, rateOn, type TaxRate, taxCategoryFor, taxTotals } from '../tax';
import type { TaxCategory, TaxKind } from '../../schema/common/tax';
import type { CompanySettings } from '../../schema/platform/db';
import type { StoredQuote, TaxedQuote } from '../../schema/stay/db';
import type { BookableHome } from './homes';
import { quotedDirham } from '../tourism-dirham';
import { ruleOn } from './rates';

/**
 * The price of a stay, with exact decimal arithmetic (big.js; never floats). Each night costs its own price when a
 * date's own rule sets one (a daily rate, lib/stay/rates.ts: `daily`), else its season's price if a season covers it (the season's weekend price on weekend nights, when set), else the weekend
 * price on weekend nights (when set), else the listing's nightly price. Fees: cleaning once per stay; the
 * tourism fee per bedroom (a studio counts as one) per night, for at most `tourism_fee_max_nights` nights: the
 * rate of the home's DET class when it has one (the Tourism Dirham, lib/tourism-dirham.ts), else the terms' own.
 * The deposit is refundable and shown apart from the total.
 */
export function priceStay(home: BookableHome, checkIn: string, checkOut: string, currency: string): StoredQuote {
  const money = (value: Big) => formatAmount(value, currency);
  const { terms } = home;
  let subtotal = new Big(0);
  const nights = eachDate(checkIn, checkOut).map((date) => {
    const weekend = terms.weekend_nights.includes(weekdayOf(date));
    const season = home.seasons.find((s) => s.starts_on <= date && date < s.ends_on);
    const own = ruleOn(home.rates, date)?.price ?? null;
    let price: string;
    let rate: StoredQuote['nights'][number]['rate'];
    if (own !== null) {
      price = own;
      rate = 'daily';
    } else if (season) {
      price = weekend && season.weekend_price !== null ? season.weekend_price : season.nightly_price;
      rate = 'season';
    } else if (weekend && terms.weekend_price !== null) {
      price = terms.weekend_price;
      rate = 'weekend';
    } else {
      price = home.nightlyPrice;
      rate = 'base';
    }
    const shown = money(new Big(price));
    subtotal = subtotal.plus(shown);
    return { date, rate, price: shown };
  });
  const fees: StoredQuote['fees'] = [];
  const cleaning = new Big(terms.cleaning_fee);
  if (cleaning.gt(0)) fees.push({ code: 'cleaning', amount: money(cleaning) });
  const stayNights = daysBetween(checkIn, checkOut);
  // A home DET classes charges the Tourism Dirham of its class (lib/tourism-dirham.ts), kept with the quote.
  const dirham =
    terms.det_class === null
      ? undefined
      : quotedDirham(terms.det_class, home.bedrooms, stayNights, terms.tourism_fee_max_nights, currency);
  const tourismNights = Math.min(stayNights, terms.tourism_fee_max_nights);
  const tourism =
    dirham === undefined
      ? new Big(terms.tourism_fee_per_bedroom_night).times(Math.max(1, home.bedrooms ?? 1)).times(tourismNights)
      : new Big(dirham.amount);
  if (tourism.gt(0)) fees.push({ code: 'tourism_fee', amount: money(tourism) });
  const total = fees.reduce((sum, fee) => sum.plus(fee.amount), subtotal);
  return {
    currency,
    nights,
    subtotal: money(subtotal),
    fees,
    total: money(total),
    deposit: money(new Big(terms.deposit)),
    ...(dirham === undefined ? {} : { tourism_dirham: dirham }),
  };
}

/** What a stay's tax is worked out with: the company's settings, the listing's own category, the rates in force. */
export type StayTaxFacts = {
  settings: CompanySettings | null | undefined;
  /** The listing's `tax_category` (migration 0043), over the company's `stay` category; null: that category. */
  listing: TaxCategory | null;
  /** The rates of the table in force on the check-in day (at most one a category). */
  rates: TaxRate[];
};

/**
 * A quote's tax (issue 35; docs "Tax", "Amounts with their tax"), all figures from the supply's day, the check-in day:
 * the nights and the cleaning fee are the stay (`stay`: the listing's category over the company's), the tourism fee
 * Dubai's Tourism Dirham (`tourism_dirham`), the deposit `deposit`; each line split on its own (lib/tax.ts lineTax,
 * the amounts VAT-inclusive) and the totals the sums of the nights' and fees' lines (the deposit apart, as from the
 * total). A company that does not charge VAT on that day (no TRN, or registered later) has every line `out_of_scope`.
 * A rated category without a rate in force that day (a gap the operator left in the table) is 409 `conflict`: the
 * amount is not taxed with a guess.
 */
export function taxQuote(quote: StoredQuote, checkIn: string, facts: StayTaxFacts): TaxedQuote {
  const { currency } = quote;
  const registered = chargesVatOn(facts.settings, checkIn);
  const tax = (amount: string, kind: TaxKind) => {
    const category = registered ? taxCategoryFor({ kind, settings: facts.settings, listing: facts.listing }) : 'out_of_scope';
    const rate = rateOn(facts.rates, category, checkIn);
    if (rate === undefined) {
      throw new ApiError(
        'conflict',
        `No ${category} tax rate is in force on ${checkIn}, the stay's first day: ask the operator to add one.`,
      );
    }
    return lineTax(amount, currency, category, rate);
  };
  const nights = quote.nights.map((night) => ({ ...night, tax: tax(night.price, 'stay') }));
  const fees = quote.fees.map((fee) => ({ ...fee, tax: tax(fee.amount, fee.code === 'cleaning' ? 'stay' : 'tourism_dirham') }));
  // The answer's order: each total beside its tax.
  return {
    currency,
    nights,
    subtotal: quote.subtotal,
    fees,
    total: quote.total,
    tax: taxTotals(
      [...nights, ...fees].map((line) => line.tax),
      currency,
    ),
    deposit: quote.deposit,
    deposit_tax: tax(quote.deposit, 'deposit'),
    ...(quote.tourism_dirham === undefined ? {} : { tourism_dirham: quote.tourism_dirham }),
  };
}

import Big from 'big.js';
import { daysBetween, eachDate, weekdayOf } from '../../lib/dates';
import { formatAmount } from '../../lib/money';
import type { StoredQuote } from '../../schema/stay/db';
import type { BookableHome } from './homes';

/**
 * The price of a stay, with exact decimal arithmetic (big.js; never floats). Each night costs its season's
 * price if a season covers it (the season's weekend price on weekend nights, when set), else the weekend
 * price on weekend nights (when set), else the listing's nightly price. Fees: cleaning once per stay; the
 * tourism fee per bedroom (a studio counts as one) per night, for at most `tourism_fee_max_nights` nights.
 * The deposit is refundable and shown apart from the total.
 */
export function priceStay(home: BookableHome, checkIn: string, checkOut: string, currency: string): StoredQuote {
  const money = (value: Big) => formatAmount(value, currency);
  const { terms } = home;
  let subtotal = new Big(0);
  const nights = eachDate(checkIn, checkOut).map((date) => {
    const weekend = terms.weekend_nights.includes(weekdayOf(date));
    const season = home.seasons.find((s) => s.starts_on <= date && date < s.ends_on);
    let price: string;
    let rate: 'base' | 'weekend' | 'season';
    if (season) {
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
  const tourismNights = Math.min(daysBetween(checkIn, checkOut), terms.tourism_fee_max_nights);
  const tourism = new Big(terms.tourism_fee_per_bedroom_night).times(Math.max(1, home.bedrooms ?? 1)).times(tourismNights);
  if (tourism.gt(0)) fees.push({ code: 'tourism_fee', amount: money(tourism) });
  const total = fees.reduce((sum, fee) => sum.plus(fee.amount), subtotal);
  return {
    currency,
    nights,
    subtotal: money(subtotal),
    fees,
    total: money(total),
    deposit: money(new Big(terms.deposit)),
  };
}

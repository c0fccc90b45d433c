import Big from 'big.js';
import { ApiError } from './errors';

/**
 * Every amount of the API is taken in, rounded and written out here, and only here (the layout test holds it:
 * `test/platform/layout.test.ts`, "formats amounts only in lib/money.ts"). Amounts are decimal strings in the company's
 * currency with that currency's own minor digits (ISO 4217: AED 2, JPY 0, KWD, BHD and OMR 3), `numeric(16, 4)` in the
 * database (migration 0035: 12 digits before the point, as before, and up to 4 after, the most ISO 4217 gives a code),
 * big.js in arithmetic. docs/api-reference.md, "Money", says the same for clients.
 */

/**
 * The one rounding rule of amounts: half up, that is half away from zero (2.345 to two digits is 2.35, -2.345 is
 * -2.35), as the leases' fees and term rents and the stays' quotes have always been rounded.
 */
const roundingMode = Big.roundHalfUp;

/**
 * Digits after the decimal point in a currency (AED 2, JPY 0, KWD 3, CLF 4), as ISO 4217 and Intl say. A code Intl
 * has no data for (a well-formed `[A-Z]{3}` that ISO 4217 does not assign) has 2, Intl's default and ISO 4217's most
 * common; new companies cannot be given one (`isKnownCurrency`).
 */
export function minorDigits(currency: string): number {
  let digits = minorDigitsByCurrency.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    minorDigitsByCurrency.set(currency, digits);
  }
  return digits;
}

/** Building an Intl.NumberFormat costs more than a quote's arithmetic: asked once per currency and process. */
const minorDigitsByCurrency = new Map<string, number>();

let known: Set<string> | undefined;
const knownCurrencies = () => {
  known ??= new Set(Intl.supportedValuesOf('currency'));
  return known;
};

/**
 * Whether a code is a currency Intl lists (`Intl.supportedValuesOf('currency')`: ISO 4217's currencies, without its
 * funds and units of account such as CLF or XAU): a company is created only in one of those.
 */
export function isKnownCurrency(currency: string): boolean {
  return knownCurrencies().has(currency);
}

/** The digits an amount is kept to: the currency's own minor digits (the money columns hold up to 4). */
export function storedDigits(currency: string): number {
  return minorDigits(currency);
}

/** Digits before the point an amount may have: 12, as `numeric(16, 4)` keeps them (and `numeric(14, 2)` did). */
export const maxWholeDigits = 12;

/** The largest amount kept with `digits` after the point: 999999999999.99 in AED, 999999999999.999 in KWD. */
export function maxStoredAmount(digits: number): Big {
  return new Big(10).pow(maxWholeDigits).minus(new Big(10).pow(-digits));
}

/** Whether a decimal string has no more digits after the point than `digits` (trailing zeros do not count). */
export function fitsDigits(amount: string, digits: number): boolean {
  const point = amount.indexOf('.');
  return point < 0 || amount.length - point - 1 <= digits || /^0*$/.test(amount.slice(point + 1 + digits));
}

/** An amount rounded to `digits` by the one rule (half up). */
export function roundTo(value: Big | string | number, digits: number): Big {
  return new Big(value).round(digits, roundingMode);
}

/** An amount as a decimal string of exactly `digits` after the point, rounded by the one rule (half up). */
export function fixedTo(value: Big | string | number, digits: number): string {
  return new Big(value).toFixed(digits, roundingMode);
}

/** An amount as a decimal string with the currency's digits, rounded by the one rule (half up). */
export function formatAmount(value: Big | string | number, currency: string): string {
  return fixedTo(value, storedDigits(currency));
}

/**
 * An amount of a request body kept to the digits its currency is stored with (`storedDigits`), as a decimal string
 * of exactly those digits; more digits after the point are 400 `currency_digits` at `path` (the field of the body).
 * Every group takes amounts in through this one function.
 */
export function amountIn(amount: string, currency: string, path: string): string {
  const digits = storedDigits(currency);
  if (!fitsDigits(amount, digits)) {
    const message = `At most ${digits} digits after the point in ${currency}.`;
    throw new ApiError('invalid_request', message, { errors: [{ path, code: 'currency_digits', message }] });
  }
  return new Big(amount).toFixed(digits);
}

/** `amountIn` of an optional amount: null stays null. */
export function optionalAmountIn(amount: string | null, currency: string, path: string): string | null {
  return amount === null ? null : amountIn(amount, currency, path);
}

/** A stored amount (numeric as text) as the API shows it: the currency's stored digits, or null. */
export function amountOut(stored: string | null, currency: string): string | null {
  return stored === null ? null : formatAmount(stored, currency);
}

/** A stored amount that is never null (a column `not null`), as the API shows it. */
export function amountShown(stored: string | Big, currency: string): string {
  return formatAmount(stored, currency);
}

/**
 * An amount as the portals' feeds write numbers: the currency's digits, without a fraction that is all zeros
 * (1250000.00 → 1250000; 99.50 stays 99.50; 12.500 KWD stays 12.500).
 */
export function plainAmount(stored: string, currency: string): string {
  return formatAmount(stored, currency).replace(/\.0+$/, '');
}

/**
 * `total` split into `count` amounts of `digits` that sum to it exactly: each is the total divided by count, rounded
 * down to `digits`; the first carries the remainder (so it is the largest, by less than `count` minor units; no fils
 * is lost).
 */
export function splitAmount(total: Big, count: number, digits: number): string[] {
  const each = total.div(count).round(digits, Big.roundDown);
  const first = total.minus(each.times(count - 1));
  return [first, ...Array.from({ length: count - 1 }, () => each)].map((amount) => amount.toFixed(digits));
}

/** A percentage of an amount as messages write it: at most 2 decimals, half up, no trailing zeros ("5%", "7.25%"). */
export function percentText(value: Big): string {
  return `${value.round(2, roundingMode).toString()}%`;
}

/**
 * An amount as an integer of the currency's minor units, as payment providers count it (issue 34): 1250.50 AED is
 * 125050 fils, 12.345 KWD is 12345 fils. The amount has at most the currency's digits (a stored amount).
 */
export function minorUnits(amount: string | Big, currency: string): number {
  return Number(new Big(amount).times(new Big(10).pow(minorDigits(currency))).toFixed(0));
}

/** An integer of minor units (a provider's) as a stored amount of the currency: 125050 fils is "1250.50" AED. */
export function fromMinorUnits(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  return new Big(minor).div(new Big(10).pow(digits)).toFixed(digits);
}

/**
 * What must be added to `amount` so its minor units are a multiple of `step` (Stripe takes three-digit currencies in
 * tens of fils: 12.345 KWD is asked as 12.350, the 0.005 added), as a stored amount; "0.000" when it is one already.
 * Always up, so the payee is never paid less than is due.
 */
export function roundingUp(amount: string, currency: string, step: number): string {
  const minor = minorUnits(amount, currency);
  const short = minor % step === 0 ? 0 : step - (minor % step);
  return fromMinorUnits(short, currency);
}

/** A card fee on `amount`: `fixed` (an amount of the currency) or `percent` of it, half up to the currency's digits. */
export function cardFeeOn(amount: string, currency: string, fee: { kind: 'fixed' | 'percent'; value: string } | null): string {
  if (fee === null) return formatAmount(0, currency);
  if (fee.kind === 'fixed') return formatAmount(fee.value, currency);
  return formatAmount(new Big(amount).times(fee.value).div(100), currency);
}

/** The sum of stored amounts of one currency, with its digits. */
export function sumAmounts(amounts: ReadonlyArray<string>, currency: string): string {
  return formatAmount(
    amounts.reduce((total, amount) => total.plus(amount), new Big(0)),
    currency,
  );
}

/**
 * `percent`% of an amount, to the currency's stored digits: `half_up` by the one rule (a deposit), or `down` (what a
 * company keeps of a cancelled booking: never a fils more than its policy says).
 */
export function percentOf(
  amount: string | Big,
  percent: number | string,
  currency: string,
  rounding: 'half_up' | 'down',
): string {
  const exact = new Big(amount).times(percent).div(100);
  return rounding === 'half_up'
    ? formatAmount(exact, currency)
    : exact.round(storedDigits(currency), Big.roundDown).toFixed(storedDigits(currency));
}

/**
 * A number's hundredths as XPath's `round($x * 100)` gives them when `$x` is a double (half toward positive infinity,
 * as `Math.round`): how PINT AE's published Schematron reads an amount in some rules (ibr-147-ae). Not a way to round
 * amounts: only to foresee a validator's floating-point arithmetic (lib/einvoice/price.ts).
 */
export function xpathHundredths(value: number): number {
  return Math.round(value * 100);
}

/** An amount with its VAT: the net, the VAT and the gross (net + VAT), each with the currency's digits. */
export type VatSplit = { net: string; vat: string; gross: string };

/**
 * The VAT of one line (issue 35; docs/api-reference.md, "Tax"): `amount` is a stored amount of `currency` (at most its
 * minor digits) and `rate` a percentage (a decimal string, "5" for 5 %). `exclusive`: the amount is the net, the VAT
 * is net × rate / 100 and the gross their sum. `inclusive`: the amount is the gross (what the payer pays), the VAT is
 * gross × rate / (100 + rate) and the net the rest. The VAT is rounded per line, once, to the currency's minor unit by
 * the one rule (half up, away from zero), as the UAE's Executive Regulation allows (Cabinet Decision No. 52 of 2017,
 * Article 61, "Fractions of Fils": the tax of a supply may be rounded to the nearest fils on a mathematical rounding);
 * the other figure is an exact sum or difference, so net + vat = gross always. A negative amount (a credit) has
 * exactly the negated split of its positive.
 */
export function vatOfLine(amount: string, currency: string, rate: string, basis: 'inclusive' | 'exclusive'): VatSplit {
  const digits = minorDigits(currency);
  if (!fitsDigits(amount, digits)) throw new Error(`vatOfLine: ${amount} has more than ${digits} digits (${currency}).`);
  const percent = new Big(rate);
  if (percent.lt(0)) throw new Error(`vatOfLine: a negative rate (${rate}).`);
  const given = new Big(amount);
  if (basis === 'exclusive') {
    const vat = given.times(percent).div(100).round(digits, roundingMode);
    return { net: given.toFixed(digits), vat: vat.toFixed(digits), gross: given.plus(vat).toFixed(digits) };
  }
  const vat = exactDiv(given.times(percent), percent.plus(100)).round(digits, roundingMode);
  return { net: given.minus(vat).toFixed(digits), vat: vat.toFixed(digits), gross: given.toFixed(digits) };
}

/**
 * a / b for the VAT of a gross amount, cut toward zero at 30 places (a constructor of its own, Big's settings left
 * alone), so the one rounding to the minor unit that follows never sees a quotient rounded up into a tie (x.xx4999…
 * read as x.xx5 would round the wrong way); a quotient just above a tie stays at or above it.
 */
function exactDiv(a: Big, b: Big): Big {
  return new Exact(a).div(new Exact(b));
}

const Exact = Big();
Exact.DP = 30;
Exact.RM = Big.roundDown;

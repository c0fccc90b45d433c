import Big from 'big.js';
import { ApiError } from './errors';

/** Digits after the decimal point in a currency (AED 2, JPY 0, KWD 3), as ISO 4217 and Intl say. */
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

/**
 * The digits an amount is kept to: the currency's minor digits, at most 2 (money columns are `numeric(14, 2)`;
 * a three-digit currency such as KWD is kept to the hundredth).
 */
export function storedDigits(currency: string): number {
  return Math.min(minorDigits(currency), 2);
}

/** The largest amount a `numeric(14, 2)` column holds. */
export const maxStoredAmount = new Big('999999999999.99');

/** Whether a decimal string has no more digits after the point than `digits`. */
export function fitsDigits(amount: string, digits: number): boolean {
  const point = amount.indexOf('.');
  return point < 0 || amount.length - point - 1 <= digits || /^0*$/.test(amount.slice(point + 1 + digits));
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

/** A stored amount (numeric as text) as the API shows it: the currency's stored digits, or null. */
export function amountOut(stored: string | null, currency: string): string | null {
  return stored === null ? null : new Big(stored).toFixed(storedDigits(currency));
}

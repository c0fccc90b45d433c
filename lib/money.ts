import Big from 'big.js';

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

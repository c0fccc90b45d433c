import Big from 'big.js';
import { describe, expect, it } from 'vitest';
import { formatMoney } from '../../lib/display';
import { ApiError } from '../../lib/errors';
import {
  amountIn,
  amountOut,
  fixedTo,
  formatAmount,
  isKnownCurrency,
  maxStoredAmount,
  minorDigits,
  plainAmount,
  roundTo,
  splitAmount,
  storedDigits,
} from '../../lib/money';

/**
 * lib/money.ts, the one home of amounts (issue 32 defect 12, issue 33 "Money"). The digits are ISO 4217's minor units
 * (List One, column "Minor unit": AED 2, SAR 2, USD 2, KWD 3, BHD 3, OMR 3, JOD 3, TND 3, JPY 0, KRW 0, CLF 4),
 * written here from the standard, not from our own output.
 */
const iso4217 = { AED: 2, SAR: 2, USD: 2, EUR: 2, KWD: 3, BHD: 3, OMR: 3, JOD: 3, TND: 3, LYD: 3, JPY: 0, KRW: 0, CLF: 4 };

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof ApiError ? { code: error.code, errors: error.errors } : error;
  }
  return undefined;
};

describe('the digits of a currency', () => {
  it('are ISO 4217’s minor units, stored as they are (no cap at two)', () => {
    for (const [currency, digits] of Object.entries(iso4217)) {
      expect(minorDigits(currency), currency).toBe(digits);
      expect(storedDigits(currency), currency).toBe(digits);
    }
  });

  it('are 2 for a code ISO 4217 does not assign; a company is given only a currency in use (not a fund: CLF)', () => {
    expect(['KWD', 'BHD', 'OMR', 'AED', 'JPY', 'ZZZ', 'ADE', 'CLF'].map(isKnownCurrency)).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
    expect(storedDigits('ZZZ')).toBe(2);
  });

  it('agree with what people are shown (lib/display.ts, Intl’s currency style), in both languages', () => {
    for (const currency of ['AED', 'KWD', 'BHD', 'OMR', 'JPY']) {
      const shown = amountOut('1234.5', currency) as string;
      for (const language of ['en', 'ar'] as const) {
        const text = formatMoney(shown, currency, language);
        // The number as written (Latin digits in both languages), its group separators left out.
        const number = /\d[\d,]*(?:[.٫]\d+)?/.exec(text)?.[0].replaceAll(',', '').replace('٫', '.');
        expect(number, `${currency} ${language}: ${text}`).toBe(shown);
      }
    }
  });
});

describe('amounts in and out', () => {
  it('take 3 digits in KWD, BHD and OMR and refuse a fourth (currency_digits at the field)', () => {
    for (const currency of ['KWD', 'BHD', 'OMR']) {
      expect(amountIn('12.125', currency, 'amount')).toBe('12.125');
      expect(amountIn('12.5', currency, 'amount')).toBe('12.500');
      expect(amountIn('12.1250', currency, 'amount')).toBe('12.125');
      const message = `At most 3 digits after the point in ${currency}.`;
      expect(refusal(() => amountIn('12.1255', currency, 'rent.amount'))).toEqual({
        code: 'invalid_request',
        errors: [{ path: 'rent.amount', code: 'currency_digits', message }],
      });
    }
  });

  it('keep AED to 2 digits and JPY to none, as before', () => {
    expect(amountIn('1250', 'AED', 'x')).toBe('1250.00');
    expect(refusal(() => amountIn('12.125', 'AED', 'x'))).toMatchObject({ errors: [{ code: 'currency_digits' }] });
    expect(amountIn('100.00', 'JPY', 'x')).toBe('100');
    expect(refusal(() => amountIn('100.5', 'JPY', 'x'))).toMatchObject({ errors: [{ code: 'currency_digits' }] });
  });

  it('show a stored numeric(16, 4) with the currency’s digits, and the feeds without an all-zero fraction', () => {
    expect([amountOut('1250.0000', 'AED'), amountOut('1250.1250', 'KWD'), amountOut('1250.0000', 'JPY')]).toEqual([
      '1250.00',
      '1250.125',
      '1250',
    ]);
    expect(amountOut(null, 'KWD')).toBeNull();
    expect([plainAmount('1250000.0000', 'AED'), plainAmount('99.5000', 'AED'), plainAmount('12.1250', 'KWD')]).toEqual([
      '1250000',
      '99.50',
      '12.125',
    ]);
    expect(plainAmount('12.5000', 'OMR')).toBe('12.500');
  });
});

describe('one rounding rule: half up (half away from zero)', () => {
  it('rounds a half up, and a negative half away from zero, in every currency', () => {
    expect([formatAmount('2.345', 'AED'), formatAmount('-2.345', 'AED'), formatAmount('2.344', 'AED')]).toEqual([
      '2.35',
      '-2.35',
      '2.34',
    ]);
    expect([formatAmount('1.0005', 'KWD'), formatAmount('1.0004', 'KWD'), formatAmount('99.5', 'JPY')]).toEqual([
      '1.001',
      '1.000',
      '100',
    ]);
    expect([fixedTo('0.125', 2), roundTo('0.125', 2).toString(), roundTo('-0.125', 2).toString()]).toEqual([
      '0.13',
      '0.13',
      '-0.13',
    ]);
  });

  it('splits an amount into parts that add up exactly, no fils lost', () => {
    const parts = splitAmount(new Big('1000.000'), 3, 3);
    expect(parts).toEqual(['333.334', '333.333', '333.333']);
    expect(parts.reduce((total, part) => total.plus(part), new Big(0)).toFixed(3)).toBe('1000.000');
    expect(splitAmount(new Big('100'), 3, 0)).toEqual(['34', '33', '33']);
  });

  it('keeps 12 digits before the point: the largest amount has the currency’s digits', () => {
    expect([maxStoredAmount(2).toFixed(2), maxStoredAmount(3).toFixed(3), maxStoredAmount(0).toFixed(0)]).toEqual([
      '999999999999.99',
      '999999999999.999',
      '999999999999',
    ]);
  });
});

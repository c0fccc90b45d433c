import { describe, expect, it } from 'vitest';
import { minorDigits, vatOfLine } from '../../lib/money';
import {
  companyTaxCategories,
  defaultTaxCategories,
  lastUsableDay,
  rateOn,
  type TaxRate,
  taxCategoryFor,
  uncl5305,
} from '../../lib/tax';
import { taxKinds } from '../../schema/common/tax';

/**
 * The VAT of one line (lib/money.ts `vatOfLine`) and the categories and rates (lib/tax.ts), issue 35 first slice. The
 * expected figures are worked by hand, or by an oracle in integer minor units (BigInt) written here from the rule
 * itself: VAT = amount × rate / 100 (net given) or amount × rate / (100 + rate) (gross given), rounded once per line,
 * half away from zero, to the minor unit (Cabinet Decision No. 52 of 2017, Article 61).
 */

/** The oracle: the VAT in minor units of `minor` (an integer) at `rate` percent (at most 4 decimals). */
function oracleVat(minor: bigint, rate: string, basis: 'inclusive' | 'exclusive'): bigint {
  const [whole, frac = ''] = rate.split('.');
  const r = BigInt(whole!) * 10000n + BigInt(frac.padEnd(4, '0'));
  const numerator = minor * r;
  const denominator = basis === 'exclusive' ? 1000000n : 1000000n + r;
  const sign = numerator < 0n ? -1n : 1n;
  const n = numerator * sign;
  // Half up (away from zero): floor((2n + d) / 2d).
  return sign * ((2n * n + denominator) / (2n * denominator));
}

const asMinor = (amount: string) => BigInt(amount.replace('.', '').replace(/^(-?)0+(?=\d)/, '$1'));
const fromMinor = (minor: bigint, currency: string) => {
  const digits = minorDigits(currency);
  const sign = minor < 0n ? '-' : '';
  const text = (minor < 0n ? -minor : minor).toString().padStart(digits + 1, '0');
  return digits === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
};

describe('vatOfLine', () => {
  it.each([
    // [amount, currency, rate, basis, net, vat, gross]
    ['100.00', 'AED', '5', 'exclusive', '100.00', '5.00', '105.00'],
    ['105.00', 'AED', '5', 'inclusive', '100.00', '5.00', '105.00'],
    ['100.00', 'AED', '5', 'inclusive', '95.24', '4.76', '100.00'], // 4.7619…
    ['120000.00', 'AED', '5', 'inclusive', '114285.71', '5714.29', '120000.00'], // 5714.2857…
    ['0.10', 'AED', '5', 'exclusive', '0.10', '0.01', '0.11'], // 0.005: a tie, up
    ['0.30', 'AED', '5', 'exclusive', '0.30', '0.02', '0.32'], // 0.015: a tie, up (half even would keep 0.02 too)
    ['0.50', 'AED', '5', 'exclusive', '0.50', '0.03', '0.53'], // 0.025: a tie, up (half even would say 0.02)
    ['0.09', 'AED', '5', 'exclusive', '0.09', '0.00', '0.09'], // 0.0045: down
    ['-0.50', 'AED', '5', 'exclusive', '-0.50', '-0.03', '-0.53'], // a credit: away from zero, the negated split
    ['-100.00', 'AED', '5', 'inclusive', '-95.24', '-4.76', '-100.00'],
    ['0.03', 'AED', '100', 'inclusive', '0.01', '0.02', '0.03'], // 0.015: an inclusive tie, up
    ['0.00', 'AED', '5', 'inclusive', '0.00', '0.00', '0.00'],
    ['250.00', 'AED', '0', 'exclusive', '250.00', '0.00', '250.00'], // zero-rated
    ['1.234', 'KWD', '5', 'inclusive', '1.175', '0.059', '1.234'], // 0.058761…
    ['0.010', 'KWD', '5', 'exclusive', '0.010', '0.001', '0.011'], // 0.0005: a tie at the fils, up
    ['12.345', 'KWD', '5', 'exclusive', '12.345', '0.617', '12.962'], // 0.61725
    ['10', 'JPY', '5', 'exclusive', '10', '1', '11'], // 0.5: a tie at the yen, up
    ['30', 'JPY', '5', 'exclusive', '30', '2', '32'], // 1.5
    ['21', 'JPY', '5', 'inclusive', '20', '1', '21'],
    ['999999999999.99', 'AED', '5', 'inclusive', '952380952380.94', '47619047619.05', '999999999999.99'], // 47619047619.0471…
    ['999999999999.99', 'AED', '5', 'exclusive', '999999999999.99', '50000000000.00', '1049999999999.99'], // 49999999999.9995
    ['999999999999.999', 'KWD', '5', 'exclusive', '999999999999.999', '50000000000.000', '1049999999999.999'],
    ['100.00', 'AED', '7.25', 'exclusive', '100.00', '7.25', '107.25'],
    ['1.00', 'AED', '12.3456', 'inclusive', '0.89', '0.11', '1.00'], // 0.10989…
  ] as const)('%s %s at %s%% (%s): net %s, VAT %s, gross %s', (amount, currency, rate, basis, net, vat, gross) => {
    expect(vatOfLine(amount, currency, rate, basis)).toEqual({ net, vat, gross });
  });

  it('agrees with integer arithmetic on every amount up to 2,000 minor units, both signs, several rates and currencies', () => {
    for (const currency of ['AED', 'KWD', 'JPY']) {
      for (const rate of ['5', '0', '7.5', '12.34', '100', '0.0001', '99.9999']) {
        for (let m = -2000n; m <= 2000n; m += 1n) {
          const amount = fromMinor(m, currency);
          for (const basis of ['inclusive', 'exclusive'] as const) {
            const split = vatOfLine(amount, currency, rate, basis);
            const vat = oracleVat(m, rate, basis);
            if (asMinor(split.vat) !== vat) {
              throw new Error(`${amount} ${currency} at ${rate}% ${basis}: ${split.vat}, expected ${fromMinor(vat, currency)}`);
            }
            const [net, gross] = basis === 'exclusive' ? [m, m + vat] : [m - vat, m];
            if (split.net !== fromMinor(net, currency) || split.gross !== fromMinor(gross, currency)) {
              throw new Error(`${amount} ${currency} at ${rate}% ${basis}: ${JSON.stringify(split)}`);
            }
          }
        }
      }
    }
  });

  it('keeps the net plus the VAT equal to the gross, and a credit the negated split of its charge, at large amounts too', () => {
    for (let i = 0n; i < 2000n; i++) {
      const m = 99999999999999n - i * 49999999999n;
      for (const basis of ['inclusive', 'exclusive'] as const) {
        const split = vatOfLine(fromMinor(m, 'AED'), 'AED', '5', basis);
        const negated = vatOfLine(fromMinor(-m, 'AED'), 'AED', '5', basis);
        expect(asMinor(split.net) + asMinor(split.vat)).toBe(asMinor(split.gross));
        expect(asMinor(split.vat)).toBe(oracleVat(m, '5', basis));
        expect(negated).toEqual({ net: `-${split.net}`, vat: `-${split.vat}`, gross: `-${split.gross}` });
      }
    }
  });

  it('takes an amount with trailing zeros but refuses more digits than the currency has, and a negative rate', () => {
    expect(vatOfLine('100.000', 'AED', '5', 'exclusive')).toEqual({ net: '100.00', vat: '5.00', gross: '105.00' });
    expect(() => vatOfLine('100.001', 'AED', '5', 'exclusive')).toThrow(/digits/);
    expect(() => vatOfLine('1.5', 'JPY', '5', 'exclusive')).toThrow(/digits/);
    expect(() => vatOfLine('1.00', 'AED', '-5', 'exclusive')).toThrow(/negative/);
  });
});

describe('categories', () => {
  it('maps each category to its UNCL5305 code (PINT AE)', () => {
    expect(uncl5305).toEqual({ standard: 'S', zero_rated: 'Z', exempt: 'E', out_of_scope: 'O' });
  });

  it('defaults each kind of amount as UAE VAT treats it', () => {
    expect(defaultTaxCategories).toEqual({
      rent_residential: 'exempt',
      rent_residential_first_supply: 'zero_rated',
      rent_commercial: 'standard',
      stay: 'standard',
      fee: 'standard',
      job_charge: 'standard',
      deposit: 'out_of_scope',
      tourism_dirham: 'out_of_scope',
    });
    expect(Object.keys(companyTaxCategories(undefined))).toEqual([...taxKinds]);
  });

  it('takes the company’s categories over the defaults, kind by kind', () => {
    const settings = { tax_categories: { rent_residential: 'standard', deposit: 'exempt' } } as const;
    expect(companyTaxCategories(settings)).toEqual({ ...defaultTaxCategories, rent_residential: 'standard', deposit: 'exempt' });
  });

  it('resolves a rent by the lease, then the listing, then the company, and other kinds by the company only', () => {
    const settings = { tax_categories: { rent_residential: 'zero_rated', fee: 'exempt' } } as const;
    expect(taxCategoryFor({ kind: 'rent_residential', settings })).toBe('zero_rated');
    expect(taxCategoryFor({ kind: 'rent_residential', settings: {} })).toBe('exempt');
    expect(taxCategoryFor({ kind: 'rent_residential', settings, listing: 'standard' })).toBe('standard');
    expect(taxCategoryFor({ kind: 'rent_residential', settings, listing: 'standard', lease: 'out_of_scope' })).toBe(
      'out_of_scope',
    );
    expect(taxCategoryFor({ kind: 'rent_commercial', settings, listing: null, lease: null })).toBe('standard');
    expect(taxCategoryFor({ kind: 'rent_commercial', settings, lease: 'exempt' })).toBe('exempt');
    // A stay is the listing's (a holiday home's rent); a lease says nothing of it.
    expect(taxCategoryFor({ kind: 'stay', settings, listing: 'zero_rated', lease: 'exempt' })).toBe('zero_rated');
    expect(taxCategoryFor({ kind: 'stay', settings, lease: 'exempt' })).toBe('standard');
    // A fee, a deposit, a job charge: the company's, whatever the listing or the lease says of its rent.
    expect(taxCategoryFor({ kind: 'fee', settings, listing: 'standard', lease: 'standard' })).toBe('exempt');
    expect(taxCategoryFor({ kind: 'deposit', settings, listing: 'standard', lease: 'standard' })).toBe('out_of_scope');
    expect(taxCategoryFor({ kind: 'job_charge', settings: undefined, lease: 'exempt' })).toBe('standard');
  });
});

describe('rates', () => {
  const rates: TaxRate[] = [
    { category: 'standard', rate: '5', valid_from: '2018-01-01', valid_to: '2029-12-31' },
    { category: 'standard', rate: '7.5', valid_from: '2030-01-01', valid_to: null },
    { category: 'zero_rated', rate: '0', valid_from: '2018-01-01', valid_to: null },
  ];

  it('finds the rate in force on a day, both ends included', () => {
    expect(rateOn(rates, 'standard', '2018-01-01')).toBe('5');
    expect(rateOn(rates, 'standard', '2029-12-31')).toBe('5');
    expect(rateOn(rates, 'standard', '2030-01-01')).toBe('7.5');
    expect(rateOn(rates, 'standard', '2999-12-31')).toBe('7.5');
    expect(rateOn(rates, 'zero_rated', '2026-06-30')).toBe('0');
  });

  it('answers no rate (null) for exempt and out-of-scope, and undefined for a day no row holds', () => {
    expect(rateOn(rates, 'exempt', '2026-01-01')).toBeNull();
    expect(rateOn(rates, 'out_of_scope', '2026-01-01')).toBeNull();
    expect(rateOn(rates, 'standard', '2017-12-31')).toBeUndefined();
    expect(rateOn([], 'standard', '2026-01-01')).toBeUndefined();
  });

  it('takes the last day some company may have used as today in UTC+14', () => {
    expect(lastUsableDay(new Date('2026-11-29T09:59:59Z'))).toBe('2026-11-29');
    expect(lastUsableDay(new Date('2026-11-29T10:00:00Z'))).toBe('2026-11-30');
    expect(lastUsableDay(new Date('2026-12-31T23:00:00Z'))).toBe('2027-01-01');
  });
});

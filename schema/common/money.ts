import { z } from '@hono/zod-openapi';
import Big from 'big.js';
import { text } from './text';

const decimalPattern = /^\d{1,12}(\.\d{1,4})?$/;

/** Whether a text is a decimal of the request's shape: a refinement reads it as a number only then. */
export const isDecimal = (value: unknown): value is string => typeof value === 'string' && decimalPattern.test(value);

/**
 * A decimal of the request as a number, for a refinement, or undefined when it is not one (the field's own pattern
 * said so already): a refinement of an object runs even when one of its fields failed its pattern, so it never reads
 * an amount with `new Big()` unguarded (that throws: a 500).
 */
export const decimalOf = (value: unknown): Big | undefined => (isDecimal(value) ? new Big(value) : undefined);

/**
 * Money in requests: decimal strings (never JSON numbers, so no float ever touches an amount), at most 12 digits before
 * the point and 4 after, as the `numeric(16, 4)` columns keep them (migration 0035). The currency's own digits (AED 2,
 * KWD 3, JPY 0) are checked where the company is known, by lib/money.ts `amountIn` (400 `currency_digits`). A text
 * that is not one stops its field's checks there (`abort`): no later refinement of the field reads it.
 */
export const decimalInput = text().regex(decimalPattern, { message: 'A decimal string such as "1250.00".', abort: true });

/** A percentage as a decimal string, 0 to 999.99 (e.g. "5" or "7.5"). */
export const percentInput = text().regex(/^\d{1,3}(\.\d{1,2})?$/, {
  message: 'A percentage as a decimal string such as "5" or "7.5".',
  abort: true,
});

/** An amount in answers: a decimal string with the company currency's minor digits. */
export const moneyOutput = z.string().openapi({ description: 'A decimal string in the company’s currency.', example: '1250.00' });

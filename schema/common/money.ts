import { z } from '@hono/zod-openapi';

/**
 * Money and percentages in requests: decimal strings (never JSON numbers, so no float ever touches an amount), at most
 * 12 digits before the point and 2 after, as the `numeric(14, 2)` columns keep them.
 */
export const decimalInput = z.string().regex(/^\d{1,12}(\.\d{1,2})?$/, 'A decimal string such as "1250.00".');

/** A percentage as a decimal string, 0 to 999.99 (e.g. "5" or "7.5"). */
export const percentInput = z.string().regex(/^\d{1,3}(\.\d{1,2})?$/, 'A percentage as a decimal string such as "5" or "7.5".');

/** An amount in answers: a decimal string with the company currency's minor digits. */
export const moneyOutput = z.string().openapi({ description: 'A decimal string in the company’s currency.', example: '1250.00' });

import type { FieldError } from './errors';
import { containsCardNumber } from '../schema/common/card-numbers';
import { forbiddenKind } from '../schema/common/forbidden-keys';

// What follows an `@` in an email address: a domain with a dot. Checked from each `@` (linear, no backtracking blow-up).
const emailDomain = /^[^\s@<>()]+\.[a-z]{2,}/i;
const notLocalPart = /[\s@<>()]/;

function hasEmail(text: string): boolean {
  for (let at = text.indexOf('@'); at > -1; at = text.indexOf('@', at + 1)) {
    if (at > 0 && !notLocalPart.test(text[at - 1] as string) && emailDomain.test(text.slice(at + 1, at + 254))) return true;
  }
  return false;
}
// International numbers anywhere in a text: + or 00, then digits with spaces, dots, dashes or brackets.
const internationalPhone = /(?:^|[^\w+])(?:\+|00)\s?\d[\d\s().-]{5,}\d/g;
// A whole value that is a local number: starts with 0, only phone characters, 9 to 15 digits.
const localPhone = /^\s*\(?0[\d\s().-]+$/;
const digitCount = (text: string) => text.replace(/\D/g, '').length;

function valueProblem(value: string): 'contact' | 'card' | undefined {
  // Cards first: a card number written in groups can also look like a phone number.
  if (containsCardNumber(value)) return 'card';
  if (hasEmail(value)) return 'contact';
  for (const match of value.matchAll(internationalPhone)) {
    const n = digitCount(match[0]);
    if (n >= 7 && n <= 15) return 'contact';
  }
  if (localPhone.test(value) && digitCount(value) >= 9 && digitCount(value) <= 15) return 'contact';
  return undefined;
}

const messages = {
  identity: 'Identity documents may not be sent in details.',
  payment: 'Card or bank details may not be sent in details.',
  secret: 'Passwords and other secrets may not be sent in details.',
  contact: 'Contact details go in email and phone, not in details.',
  card: 'A card number may not be sent in details.',
} as const;

const codes = {
  identity: 'forbidden_key',
  payment: 'forbidden_key',
  secret: 'forbidden_key',
  contact: 'contact_details',
  card: 'card_number',
} as const;

export type DetailValue = string | number | boolean | Array<string | number | boolean>;

/** Every refused entry of `details`, each at `details.<key>` (one problem per key). */
export function detailsProblems(details: Record<string, DetailValue>): FieldError[] {
  const problems: FieldError[] = [];
  for (const [key, value] of Object.entries(details)) {
    let kind: keyof typeof messages | undefined = forbiddenKind(key);
    // A key is text that is kept too: a card number in it (its digits joined by `_`) is refused like one in a value.
    if (!kind && containsCardNumber(key.replaceAll('_', ' '))) kind = 'card';
    if (!kind) {
      for (const item of Array.isArray(value) ? value : [value]) {
        if (typeof item === 'boolean') continue;
        // Whole numbers are checked as their digits: a card number sent as a JSON number is still one.
        kind = valueProblem(typeof item === 'number' ? (Number.isInteger(item) ? item.toFixed(0) : '') : item);
        if (kind) break;
      }
    }
    if (kind) problems.push({ path: `details.${key}`, code: codes[kind], message: messages[kind] });
  }
  return problems;
}

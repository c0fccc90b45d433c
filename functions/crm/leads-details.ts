import type { FieldError } from '../../lib/errors';

/**
 * What a lead's `details` may not carry: identity documents, card or bank numbers, passwords, contact
 * details. Keys are matched in any spelling: lower-cased, split on `_` (and `-`), digits dropped, then every
 * single token and every run of adjacent tokens joined is compared whole with the lists below. So
 * `passport_no`, `pass_port`, `passport2` and `my_emirates_id` are refused, while `postcard`,
 * `spinning_room`, `idea` and `occupation` pass (no whole token or run of tokens is on a list).
 */
const identity = (
  'passport passportno passportnumber passportnum emiratesid emiratesidnumber emiratesidno nationalid ' +
  'nationalidnumber nationalidentity idnumber idno idnum idcard iddocument identitycard identitynumber ' +
  'identitydocument ssn socialsecurity socialsecuritynumber nino nationalinsurance ' +
  'nationalinsurancenumber taxid visanumber visano residencepermit residencyid residencynumber ' +
  'driverslicense driverlicense drivinglicense driverslicence driverlicence drivinglicence'
).split(' ');
const payment = (
  'card cardnumber cardno cardnum creditcard debitcard cc ccnumber ccnum ccno cvv cvc cvn csc ' +
  'securitycode cardsecuritycode cardexpiry cardholder iban bankaccount bankaccountnumber routingnumber ' +
  'sortcode'
).split(' ');
const secret = 'password passwd pwd passcode passphrase pin pincode pinnumber otp secret securityanswer credentials'.split(' ');
const contact = (
  'email emailaddress phone phonenumber phoneno telephone tel mobile mobilenumber mobileno cell ' +
  'cellphone landline fax whatsapp telegram viber wechat skype contactnumber contactno'
).split(' ');

const forbidden = new Map<string, 'identity' | 'payment' | 'secret' | 'contact'>([
  ...identity.map((t) => [t, 'identity'] as const),
  ...payment.map((t) => [t, 'payment'] as const),
  ...secret.map((t) => [t, 'secret'] as const),
  ...contact.map((t) => [t, 'contact'] as const),
]);

/** The list a key falls on, if any: any single token, or any run of adjacent tokens joined, matched whole. */
export function forbiddenKind(key: string) {
  const tokens = key
    .toLowerCase()
    .split(/[_-]+/)
    .map((t) => t.replace(/[0-9]/g, ''))
    .filter((t) => t.length > 0);
  for (let start = 0; start < tokens.length; start++) {
    let joined = '';
    for (let end = start; end < tokens.length; end++) {
      joined += tokens[end];
      const kind = forbidden.get(joined);
      if (kind) return kind;
    }
  }
  return undefined;
}

/** Luhn's check on 13 to 19 digits: what a payment card number passes. */
export function isCardNumber(digits: string): boolean {
  if (!/^\d{13,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

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
// Candidate card numbers in a text: 13 to 19 digits, spaces or dashes between.
const cardCandidates = /(?<!\d)\d(?:[ -]?\d){12,18}(?![ -]?\d)/g;

/** Whether a text carries a payment card number (13 to 19 digits passing Luhn's check, grouped or not). */
export function containsCardNumber(text: string): boolean {
  for (const match of text.matchAll(cardCandidates)) if (isCardNumber(match[0].replace(/\D/g, ''))) return true;
  return false;
}

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

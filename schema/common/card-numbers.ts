/**
 * Payment card numbers in text that arrives from outside (docs/api-reference.md, "Inbound channels", "Card numbers"):
 * one detector for every path, so what a form refuses and what an inbound message has removed are the same numbers.
 *
 * A card is 13 to 19 digits passing Luhn's check, written as cards are written: one block of digits, or blocks of at
 * least 4 digits (the last may be shorter: `4222 2222 2222 2`) with one separator between blocks. A digit is any
 * Unicode decimal digit (ASCII, Arabic-Indic, Eastern Arabic/Persian, full-width, …: `\p{Nd}`, read by its value); a
 * separator is one space of any width (no-break, thin, narrow…), dot, dash or slash; invisible marks (bidi marks, zero
 * width spaces: `\p{Cf}`) are ignored. Every stretch of blocks is looked at, not only the longest, so a card followed by
 * its security code (`4111 1111 1111 1111 123`), a card after other digits, and two cards in a row are all found.
 * Dates (`2026-01-05`), phone numbers (`+971 50 123 4567`, `050 123 4567`) and prices written with thousands groups
 * (`1.500.000`) never have a block of 4 or more before a short one, so they are not read as cards.
 */

/** Luhn's check on 13 to 19 ASCII digits: what a payment card number passes. */
export function isCardNumber(digits: string): boolean {
  if (!/^\d{13,19}$/.test(digits)) return false;
  return luhn(Array.from(digits, Number), 0, digits.length);
}

function luhn(values: readonly number[], from: number, to: number): boolean {
  let sum = 0;
  for (let i = to - 1, odd = false; i >= from; i--, odd = !odd) {
    let d = values[i] as number;
    if (odd) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** A space of any width, a dot, a dash or a slash: what may stand between two blocks of a card's digits. */
const separators = '\\p{Zs}\\t\\p{Pd}\\u2212.\\u00B7\\u2024\\u066B\\u30FB\\uFF0E\\uFF65/\\u2044\\u2215\\uFF0F';
const separator = new RegExp(`[${separators}]`, 'u');
/** Digits joined by at most one separator each (invisible marks ignored): the stretches a card may be found in. */
const digitRuns = new RegExp(`\\p{Nd}(?:\\p{Cf}{0,4}[${separators}]?\\p{Cf}{0,4}\\p{Nd})*`, 'gu');
const decimalDigit = /\p{Nd}/u;

const values = new Map<number, number>();

/**
 * The value of a decimal digit. Unicode encodes each script's digits as ten code points in a row, 0 to 9 (a stability
 * guarantee), and runs of them only ever follow one another whole: the value is the distance from the run's start, mod 10.
 */
function digitValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  let value = values.get(code);
  if (value === undefined) {
    let start = code;
    while (decimalDigit.test(String.fromCodePoint(start - 1))) start--;
    value = (code - start) % 10;
    values.set(code, value);
  }
  return value;
}

/** A block of digits in a text: where it starts and ends (string offsets) and its digits' values. */
type Block = { start: number; end: number; digits: number[] };

function blocksOf(run: string, offset: number): Block[] {
  const blocks: Block[] = [];
  let current: Block | undefined;
  let at = offset;
  for (const char of run) {
    const code = char.codePointAt(0) as number;
    if (decimalDigit.test(char)) {
      if (!current) {
        current = { start: at, end: at, digits: [] };
        blocks.push(current);
      }
      current.digits.push(digitValue(code));
      current.end = at + char.length;
    } else if (separator.test(char)) {
      current = undefined;
    }
    at += char.length;
  }
  return blocks;
}

/**
 * The card numbers of one run of blocks, as ranges of block indexes (merged where they share a block): every stretch of
 * whole blocks written as a card is written (one block, or blocks of 4+ digits but the last) with 13 to 19 digits
 * passing Luhn's check.
 */
function cardsIn(blocks: readonly Block[]): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  for (let first = 0; first < blocks.length; first++) {
    const digits: number[] = [];
    for (let last = first; last < blocks.length; last++) {
      const block = blocks[last] as Block;
      digits.push(...block.digits);
      if (digits.length > 19) break;
      if (digits.length >= 13 && luhn(digits, 0, digits.length)) {
        const previous = found[found.length - 1];
        if (previous && previous[1] >= first) previous[1] = Math.max(previous[1], last);
        else found.push([first, last]);
      }
      // Only a block of 4 or more digits may be followed by another one of the same card.
      if (block.digits.length < 4) break;
    }
  }
  return found;
}

/** What a card number is replaced with where a text is kept ({@link redactCardNumbers}). */
export const redactedCard = '[card number removed]';

/**
 * A text with every payment card number in it replaced by {@link redactedCard}, and how many were: for texts that are
 * kept whatever they hold (an inbound message cannot be refused; a name or a message of a form is not refused for it),
 * so no card number is ever stored, logged or sent in the clear. Every other character stays as it was.
 */
export function redactCardNumbers(text: string): { text: string; redacted: number } {
  let kept = '';
  let from = 0;
  let redacted = 0;
  for (const run of text.matchAll(digitRuns)) {
    const blocks = blocksOf(run[0], run.index);
    const digits = blocks.reduce((n, block) => n + block.digits.length, 0);
    if (digits < 13) continue;
    for (const [first, last] of cardsIn(blocks)) {
      const start = (blocks[first] as Block).start;
      kept += text.slice(from, start) + redactedCard;
      from = (blocks[last] as Block).end;
      redacted++;
    }
  }
  return redacted === 0 ? { text, redacted } : { text: kept + text.slice(from), redacted };
}

/** Whether a text carries a payment card number ({@link redactCardNumbers} would replace one). */
export function containsCardNumber(text: string): boolean {
  return redactCardNumbers(text).redacted > 0;
}

/** A kept text without card numbers (undefined and null stay as they are). */
export function withoutCardNumbers<T extends string | null | undefined>(text: T): T {
  return (typeof text === 'string' ? redactCardNumbers(text).text : text) as T;
}

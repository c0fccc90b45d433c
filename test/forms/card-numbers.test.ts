import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { containsCardNumber, redactCardNumbers, redactedCard } from '../../schema/common/card-numbers';

/**
 * The one card-number redaction (schema/common/card-numbers.ts) as properties: any Luhn-valid number of 13 to 19 digits
 * written as cards are written, in any script's digits and with any separator, inside any text, is removed; what is left
 * holds no card number in any form; a text without one is left exactly as it was. The oracle below reads digits with a
 * table of the scripts' zeros (not the code's own reading) and separators with a list of its own.
 */

/** The zero of each script the properties write digits in: the four the issue names, then others of `\p{Nd}`. */
const zeros = [
  0x30, // ASCII
  0x660, // Arabic-Indic
  0x6f0, // Eastern Arabic / Persian
  0xff10, // full-width
  0x7c0, // N'Ko
  0x966, // Devanagari
  0x9e6, // Bengali
  0xbe6, // Tamil
  0xe50, // Thai
  0xf20, // Tibetan
  0x1040, // Myanmar
  0x17e0, // Khmer
  0x1810, // Mongolian
  0x1d7ce, // mathematical bold (outside the BMP: two UTF-16 units)
  0x1d7f6, // mathematical monospace
  0x1e950, // Adlam
];

/** The separators the properties write between a card's blocks: spaces of every width, dots, dashes, slashes. */
const separators = [
  ' ',
  '\u00a0',
  '\u202f',
  '\u2009',
  '\u2007',
  '\u3000',
  '.',
  '\uff0e',
  '-',
  '\u2010',
  '\u2013',
  '\u2212',
  '/',
  '\uff0f',
];
/** Invisible marks a text may carry between digits (bidi marks, zero-width space): not separators, ignored. */
const invisible = ['\u200e', '\u200f', '\u200b', '\u2060', '\u061c'];

const digitIn = (zero: number, value: number) => String.fromCodePoint(zero + value);

/** A digit's value by the table of zeros; undefined for a character that is not one of these digits. */
function digitOf(char: string): number | undefined {
  const code = char.codePointAt(0) as number;
  for (const zero of zeros) if (code >= zero && code < zero + 10) return code - zero;
  return undefined;
}

const luhnValid = (digits: readonly number[]) =>
  digits.reduceRight((sum, d, i) => {
    const odd = (digits.length - 1 - i) % 2 === 1;
    const doubled = odd ? (d * 2 > 9 ? d * 2 - 9 : d * 2) : d;
    return sum + doubled;
  }, 0) %
    10 ===
  0;

/**
 * The oracle: every card number in a text, as the digits of each one found. A text is read as blocks of digits (any
 * script of the table, invisible marks dropped) joined by exactly one separator; a card is a stretch of whole blocks
 * with 13–19 digits passing Luhn, every block but its last of 4 digits or more (one block alone: any length).
 */
function cardsFound(text: string): string[] {
  let plain = '';
  for (const char of text) {
    if (invisible.includes(char)) continue;
    const value = digitOf(char);
    plain += value !== undefined ? String(value) : separators.includes(char) ? ' ' : '#';
  }
  const found: string[] = [];
  for (const run of plain.matchAll(/\d+(?: \d+)*/g)) {
    const blocks = run[0].split(' ');
    for (let first = 0; first < blocks.length; first++) {
      for (let last = first; last < blocks.length; last++) {
        const inner = blocks.slice(first, last);
        if (inner.some((block) => block.length < 4)) break;
        const digits = blocks.slice(first, last + 1).join('');
        if (digits.length > 19) break;
        if (digits.length >= 13 && luhnValid(Array.from(digits, Number))) found.push(digits);
      }
    }
  }
  return found;
}

/** A Luhn-valid number of 13 to 19 digits (its check digit computed). */
const cardDigits = fc
  .integer({ min: 13, max: 19 })
  .chain((length) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: length - 1, maxLength: length - 1 }))
  .map((body) => {
    for (let check = 0; check < 10; check++) if (luhnValid([...body, check])) return [...body, check];
    throw new Error('no check digit');
  });

/** How a card is grouped: one block, blocks of 4 (the last shorter), or 4-6-rest as American Express and Diners print. */
function grouped(digits: readonly string[], layout: 'solid' | 'fours' | 'four-six'): string[][] {
  if (layout === 'solid') return [[...digits]];
  const sizes = layout === 'fours' ? [4, 4, 4, 4, 4] : [4, 6, 9];
  const blocks: string[][] = [];
  let at = 0;
  for (const size of sizes) {
    if (at >= digits.length) break;
    blocks.push(digits.slice(at, at + size));
    at += size;
  }
  return blocks;
}

/** A card as a person writes it: one script (or a mix), one layout, one separator, maybe invisible marks around it. */
const writtenCard = fc
  .record({
    digits: cardDigits,
    scripts: fc.oneof(
      fc.constantFrom(...zeros).map((zero) => [zero]),
      fc.array(fc.constantFrom(...zeros), { minLength: 2, maxLength: 4 }),
    ),
    layout: fc.constantFrom('solid' as const, 'fours' as const, 'four-six' as const),
    separator: fc.constantFrom(...separators),
    mark: fc.option(fc.constantFrom(...invisible), { nil: undefined }),
    pick: fc.array(fc.nat(), { minLength: 19, maxLength: 19 }),
  })
  .map(({ digits, scripts, layout, separator, mark, pick }) => {
    const chars = digits.map((d, i) => digitIn(scripts[(pick[i] as number) % scripts.length] as number, d));
    const join = mark ? `${mark}${separator}` : separator;
    return {
      digits: digits.join(''),
      text: grouped(chars, layout)
        .map((block) => block.join(''))
        .join(join),
    };
  });

/** Words, punctuation, line breaks, spaces and digits of any script: the text around a card (it may hold cards too). */
const unit = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom('My card', 'رقم البطاقة', 'please', 'book it', 'exp', 'CVV', '\n', ', ', ': ', '(', ')', 'x'),
  },
  { weight: 2, arbitrary: fc.constantFrom(...separators, ...invisible) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom(...zeros), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 6 }))
      .map(([zero, ds]) => ds.map((d) => digitIn(zero, d)).join('')),
  },
  {
    // Any other characters, without digits, spaces, dashes, dots, slashes and marks (which the table lists itself).
    weight: 1,
    arbitrary: fc
      .string({ unit: 'grapheme', maxLength: 4 })
      .map((s) => s.replace(/[\p{Nd}\p{Zs}\p{Cf}\p{Pd}\t./\u00b7\u2024\u066b\u30fb\uff0e\uff65\u2044\u2215\uff0f\u2212]/gu, 'x')),
  },
);
const text = fc.array(unit, { maxLength: 12 }).map((parts) => parts.join(''));
/** What stands right before or after a card: a visible character that is not a digit. */
const edge = fc.constantFrom(' ', '\n', ', ', ': ', ' (', ') ', 'x', '.', '-', '/', '\u00a0');

describe('card numbers in text from outside', () => {
  it('finds the oracle’s cards in the examples it is meant for (the oracle itself is right)', () => {
    expect(cardsFound('4111 1111 1111 1111')).toEqual(['4111111111111111']);
    expect(cardsFound('+971 50 123 4567')).toEqual([]);
    expect(cardsFound(`card ${'٤١١١ ١١١١ ١١١١ ١١١١'}`)).toEqual(['4111111111111111']);
    for (const zero of zeros) expect(String.fromCodePoint(zero)).toMatch(/^\p{Nd}$/u);
  });

  it('removes any Luhn-valid number of 13–19 digits, in any script and separator, wherever it is in a text', () => {
    fc.assert(
      fc.property(text, edge, writtenCard, edge, text, (before, left, card, right, after) => {
        const sent = `${before}${left}${card.text}${right}${after}`;
        const kept = redactCardNumbers(sent);
        expect(kept.text).not.toContain(card.text);
        expect(kept.text).toContain(redactedCard);
        expect(kept.redacted).toBeGreaterThan(0);
        expect(containsCardNumber(sent)).toBe(true);
        expect(cardsFound(kept.text)).toEqual([]);
      }),
      { numRuns: 3000 },
    );
  });

  it('leaves no card number in any form in what it keeps', () => {
    const mixed = fc
      .array(fc.oneof({ weight: 3, arbitrary: text }, { weight: 1, arbitrary: writtenCard.map((c) => c.text) }), {
        maxLength: 6,
      })
      .chain((parts) => fc.array(edge, { minLength: parts.length, maxLength: parts.length }).map((edges) => ({ parts, edges })))
      .map(({ parts, edges }) => parts.map((part, i) => `${edges[i]}${part}`).join(''));
    fc.assert(
      fc.property(mixed, (sent) => {
        const kept = redactCardNumbers(sent).text;
        expect(cardsFound(kept)).toEqual([]);
        expect(containsCardNumber(kept)).toBe(false);
        expect(redactCardNumbers(kept).text).toBe(kept);
      }),
      { numRuns: 3000 },
    );
  });

  it('leaves a text without a card exactly as it was', () => {
    fc.assert(
      fc.property(text, (sent) => {
        fc.pre(cardsFound(sent).length === 0);
        expect(redactCardNumbers(sent)).toEqual({ text: sent, redacted: 0 });
        expect(containsCardNumber(sent)).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ['a phone number', 'Call me on +971 50 123 4567 or 050 123 4567, 055 987 6543'],
    ['two local numbers in a row', '050 123 4567 055 987 6543'],
    ['dates and a range', 'From 2026-01-05 - 2026-01-12, or 05/01/2026 to 12.01.2026'],
    ['prices with thousands groups', 'Budget 1.500.000 - 2.000.000 AED, or ١٬٥٠٠٬٠٠٠'],
    ['a number that fails Luhn', 'Flight 4111 1111 1111 1112 lands at 3'],
    ['an ad id of 18 digits that fails Luhn', 'ad 120226305854810726'],
    ['digits joined by two separators', '4111 - 1111 - 1111 - 1111'],
  ])('keeps %s as it is', (_name, sent) => {
    expect(redactCardNumbers(sent)).toEqual({ text: sent, redacted: 0 });
  });

  it.each([
    ['a card followed by its security code', 'card 4111 1111 1111 1111 123 thanks', 'card [card number removed] 123 thanks'],
    ['a card followed by its expiry', '4111 1111 1111 1111 12/29', '[card number removed] 12/29'],
    ['the first of two cards in a row', '4111111111111111 5555555555554444', `${redactedCard} ${redactedCard}`],
    ['a 13-digit card in blocks of 4', 'old visa 4222 2222 2222 2', `old visa ${redactedCard}`],
    ['American Express as printed', 'amex 3782 822463 10005', `amex ${redactedCard}`],
    ['a card after other digits', 'flat 12 4111 1111 1111 1111', `flat 12 ${redactedCard}`],
    ['Arabic-Indic digits', 'بطاقتي ٤١١١ ١١١١ ١١١١ ١١١١', `بطاقتي ${redactedCard}`],
    ['Eastern Arabic digits with dashes', '۴۱۱۱-۱۱۱۱-۱۱۱۱-۱۱۱۱', redactedCard],
    ['full-width digits', '４１１１ １１１１ １１１１ １１１１', redactedCard],
    ['no-break and thin spaces', '4111\u00a01111\u202f1111\u20091111', redactedCard],
    ['dots', '4111.1111.1111.1111', redactedCard],
    ['slashes', '4111/1111/1111/1111', redactedCard],
    ['bidi marks between the blocks', '4111\u200e 1111\u200e 1111\u200e 1111', redactedCard],
  ])('removes %s', (_name, sent, kept) => {
    expect(redactCardNumbers(sent).text).toBe(kept);
  });

  it('removes both of two cards in a row, however they are written', () => {
    const kept = redactCardNumbers('cards 4111 1111 1111 1111 5555 5555 5555 4444 ok').text;
    expect(cardsFound(kept)).toEqual([]);
    expect(kept).not.toMatch(/4111|5555|4444/);
  });
});

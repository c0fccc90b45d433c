/**
 * The one normalisation of searched text (issue 36): the stored search text of a listing and every query word go
 * through {@link normaliseSearch}, so the two always meet in the same form. Pure, no database: the Workers bundle
 * carries it.
 *
 * - Lone surrogates become spaces (never an exception), format characters (ZWJ, ZWNJ, bidi marks, soft hyphen) and
 *   the tatweel are dropped.
 * - Unicode compatibility decomposition (NFKD), lower case, every combining mark removed: Latin accents (é → e),
 *   Arabic harakat (U+064B–U+065F), the superscript alef (U+0670), and the hamza and madda that NFKD splits from
 *   أ إ آ ؤ ئ (→ ا ا ا و ي). Presentation forms (ﻻ, ﺍ) decompose to their letters.
 * - ٱ → ا, ى → ي, ة → ه, Persian ی → ي and ک → ك; Arabic-Indic (٠–٩) and Persian (۰–۹) digits → 0–9.
 * - Anything that is not a letter or a digit is a space; spaces collapse; no space at either end.
 * - The article: ال at the start of a word is removed (again, while the word still starts with ال and keeps two
 *   letters after it), in the stored text and in the query alike, so "المارينا" and "مارينا" are one word.
 *   Decision: stripping in both (rather than storing both forms) keeps the stored text as short as the words, and
 *   needs no second pattern per query word; a word that merely begins with ال (الوان) loses it on both sides, so it
 *   still meets itself.
 *
 * Normalising twice changes nothing (a property test: test/catalogue/search-text.test.ts).
 */

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const dropped = /[\p{Cf}\u0640]/gu;
const marks = /\p{M}/gu;
const notWord = /[^\p{L}\p{N}]+/gu;
const letters: Record<string, string> = {
  ٱ: 'ا',
  ى: 'ي',
  ة: 'ه',
  ی: 'ي',
  ک: 'ك',
  ۀ: 'ه',
};
const letterPattern = new RegExp(`[${Object.keys(letters).join('')}]`, 'g');
const digits = /[\u0660-\u0669\u06F0-\u06F9]/g;

function digitOf(d: string): string {
  const code = d.charCodeAt(0);
  return String(code >= 0x06f0 ? code - 0x06f0 : code - 0x0660);
}

/** A word without its leading article ال (repeated while two letters would remain). */
function withoutArticle(word: string): string {
  let w = word;
  while (w.startsWith('ال') && w.length >= 4) w = w.slice(2);
  return w;
}

/** The searchable form of a text: words of letters and digits, folded as above, joined by single spaces. */
export function normaliseSearch(text: string): string {
  const folded = text
    .replace(loneSurrogate, ' ')
    .normalize('NFKD')
    .toLowerCase()
    .normalize('NFKD')
    .replace(marks, '')
    .replace(dropped, '')
    .replace(letterPattern, (l) => letters[l] ?? l)
    .replace(digits, digitOf)
    .replace(notWord, ' ');
  return folded
    .split(' ')
    .filter((w) => w.length > 0)
    .map(withoutArticle)
    .join(' ');
}

/** The distinct words of a query, normalised, in the order typed (at most {@link maxQueryWords}). */
export function queryWords(q: string): string[] {
  const words = normaliseSearch(q)
    .split(' ')
    .filter((w) => w.length > 0);
  return [...new Set(words)].slice(0, maxQueryWords);
}

/** Query words beyond this many are not searched (a 200-character query has at most 100). */
export const maxQueryWords = 12;

/** A word this long (in characters) or longer is also found with one letter wrong, missing, extra or swapped. */
export const typoMinLength = 5;

/** Longer words are found by prefix only: their variants would make a pattern PostgreSQL refuses as too complex. */
export const typoMaxLength = 32;

/**
 * The PostgreSQL regular expression (ARE) that finds a query word in a stored search text: a word of the text that
 * starts with it, or — for a word of {@link typoMinLength} letters or more that is not a number ({@link hasVariants})
 * — with it changed by one edit (a letter replaced, left out, added, or two neighbours swapped). The words hold only
 * letters and digits (normalised), so they need no escaping. Words longer than {@link typoMaxLength} are found by
 * prefix only.
 */
export function wordPattern(word: string): string {
  return `(^| )(${wordAlternatives(word)})`;
}

/**
 * The pattern a single word (of `listing_search_words`, migration 0054) matches when {@link wordPattern} finds `word`
 * at that word: it starts with the word or one of its variants.
 */
export function startPattern(word: string): string {
  return `^(${wordAlternatives(word)})`;
}

/** A normalised word of digits only: a number (a reference, a price, a year, part of a phone number). */
const number = /^[0-9]+$/;

/** Whether a normalised word is a number ({@link number}): found by prefix only, and measured as typed. */
export function isNumberWord(word: string): boolean {
  return number.test(word);
}

/**
 * Whether a word is also found one edit away: {@link typoMinLength} to {@link typoMaxLength} characters, and not a
 * number. Decision (docs/api-reference.md, "Numbers"): one wrong letter is a misspelling of the same word; one wrong
 * digit is another number (another listing's reference, another price), so a number is found by prefix only, as
 * Meilisearch's `typoTolerance.disableOnNumbers` and Algolia's `allowTyposOnNumericTokens: false` do.
 */
export function hasVariants(word: string): boolean {
  const length = Array.from(word).length;
  return length >= typoMinLength && length <= typoMaxLength && !number.test(word);
}

/** The word and its variants (one edit away, when it {@link hasVariants}), as regular-expression alternatives. */
function wordAlternatives(word: string): string {
  const chars = Array.from(word);
  const variants = new Set<string>([word]);
  if (hasVariants(word)) {
    const any = '[^ ]';
    for (let i = 0; i < chars.length; i++) {
      const before = chars.slice(0, i).join('');
      const after = chars.slice(i + 1).join('');
      variants.add(`${before}${any}${after}`);
      variants.add(`${before}${after}`);
      variants.add(`${before}${any}${chars.slice(i).join('')}`);
      if (i + 1 < chars.length) variants.add(`${before}${chars[i + 1]}${chars[i]}${chars.slice(i + 2).join('')}`);
    }
  }
  return [...variants].join('|');
}

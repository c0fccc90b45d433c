import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listingSearchText } from '../../lib/listing-search';
import { normaliseSearch, queryWords, wordPattern } from '../../lib/search-text';

/** The one normalisation of searched text (lib/search-text.ts): each rule of the Search section, then its properties. */

describe('normaliseSearch: the rules', () => {
  it.each([
    ['hamza forms of alef', 'أحمد إسلام آمنة ٱلله', 'احمد اسلام امنه له'],
    ['alef maqsura, taa marbuta, hamza on waw and yaa', 'مستشفى غرفة مؤجر جزائر', 'مستشفي غرفه موجر جزاير'],
    ['harakat, shadda, sukun and the superscript alef', 'مُؤَجَّرَةٌ رَحْمٰن', 'موجره رحمن'],
    ['tatweel', 'شـــقة فاخـــرة', 'شقه فاخره'],
    ['Arabic-Indic and Persian digits', '٤ شيكات ۱۲ ٣٠٠', '4 شيكات 12 300'],
    ['the article at the start of a word', 'المارينا البرشاء الريم', 'مارينا برشاء ريم'],
    ['the article only at the start', 'ممشى المارينا', 'ممشي مارينا'],
    ['Latin case and accents', 'Café RÉSIDENCE naïve Ångström', 'cafe residence naive angstrom'],
    ['punctuation and symbols to spaces', 'Marina-Gate | 2BR, (sea) view… 60/40', 'marina gate 2br sea view 60 40'],
    ['collapsed whitespace', '  a \t\n b  ', 'a b'],
    ['presentation forms', 'ﻻ ﺍﻟﺒﺤﺮ', 'لا بحر'],
    ['format characters (ZWNJ, RLM, soft hyphen) inside words', 'مي\u200Cخواهم Mar\u00ADina \u200Fدبي', 'ميخواهم marina دبي'],
    ['lone surrogates', 'a\uD800b \uDC00c', 'a b c'],
  ])('%s', (_name, input, expected) => {
    expect(normaliseSearch(input)).toBe(expected);
  });

  it('gives the same words to a query and to the text it was typed from', () => {
    expect(queryWords('  المارينا, Marina-Gate  marina ')).toEqual(['مارينا', 'marina', 'gate']);
    expect(queryWords('!!! ...')).toEqual([]);
  });

  it('builds a listing text from its titles, slugs, places and descriptions in both languages', () => {
    const text = listingSearchText({
      title: { en: 'Sea View', ar: 'إطلالة بحرية' },
      description: JSON.stringify({ en: 'Bright.', ar: 'مشرقة.' }),
      slug_en: 'marina-gate-2br',
      slug_ar: 'مارينا-جيت',
      places: [{ name: { en: 'Dubai Marina', ar: 'دبي مارينا' }, slug_en: 'dubai-marina', slug_ar: null }, null],
    });
    expect(text).toBe('sea view اطلاله بحريه marina gate 2br مارينا جيت dubai marina دبي مارينا dubai marina bright مشرقه');
  });

  const matches = (word: string, text: string) => new RegExp(wordPattern(word), 'u').test(text);

  it('lets one wrong letter through for words of five letters or more, not below', () => {
    expect(matches('marena', 'dubai marina')).toBe(true);
    expect(matches('mrina', 'dubai marina')).toBe(true);
    expect(matches('marinna', 'dubai marina')).toBe(true);
    expect(matches('mraina', 'dubai marina')).toBe(true);
    expect(matches('palm', 'dubai marina')).toBe(false);
    expect(matches('vela', 'villa')).toBe(false);
  });

  it('finds a number by prefix only: one wrong digit is another number', () => {
    expect(matches('93257', 'unit 93257 marina')).toBe(true);
    expect(matches('9325', 'unit 93257 marina')).toBe(true);
    expect(matches('93258', 'unit 93257 marina')).toBe(false);
    expect(matches('9357', 'unit 93257 marina')).toBe(false);
    expect(matches('932577', 'unit 93257 marina')).toBe(false);
    expect(matches('39257', 'unit 93257 marina')).toBe(false);
    // A word of letters and digits is still a word: one edit finds it.
    expect(matches('unit93258', 'unit93257 marina')).toBe(true);
  });
});

describe('normaliseSearch: properties', () => {
  const texts = fc.oneof(
    fc.string({ unit: 'grapheme' }),
    fc.string({ unit: 'binary' }),
    fc.string({ unit: fc.constantFrom(...'أإآٱاىيةهؤئوـًٌٍَُِّْٰ٠١٩۰۹ال Aa-é.\u200C\uD800\uDC00ﻻ'.split('')) }),
  );

  it('normalising twice changes nothing, and never throws (lone surrogates included)', () => {
    fc.assert(
      fc.property(texts, (text) => {
        const once = normaliseSearch(text);
        expect(normaliseSearch(once)).toBe(once);
      }),
      { numRuns: 3000 },
    );
  });

  it('gives only lower-case letters and digits separated by single spaces', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(normaliseSearch(text)).toMatch(/^([\p{L}\p{N}]+( [\p{L}\p{N}]+)*)?$/u);
      }),
      { numRuns: 2000 },
    );
  });

  it('a word pattern finds the word itself in a text that holds it', () => {
    fc.assert(
      fc.property(texts, texts, (before, word) => {
        const [first] = queryWords(word);
        if (first === undefined) return;
        const text = normaliseSearch(`${before} ${word}`);
        expect(new RegExp(wordPattern(first), 'u').test(text)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});

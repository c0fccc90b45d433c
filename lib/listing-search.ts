import { type RawBuilder, sql } from 'kysely';
import type { LocalisedText } from '../schema/common/columns';
import type { Executor } from './db/index';
import { plannedEachRun } from './db/prepared';
import { hasVariants, isNumberWord, normaliseSearch, startPattern, wordPattern } from './search-text';

/**
 * A listing's stored search text (migration 0050, `listings.search_text`) and the conditions a query's words put on it
 * (issue 36). The text is written from TypeScript by every writer of a listing, through {@link listingSearchText}.
 */

/** A place (city, area, project) as the search text reads it. */
export type SearchPlace = { name: LocalisedText | string | null; slug_en: string | null; slug_ar: string | null };

/** What a listing's search text is made of. */
export type SearchSource = {
  title: LocalisedText | string | null;
  description: LocalisedText | string | null;
  slug_en: string;
  slug_ar: string | null;
  places: ReadonlyArray<SearchPlace | null>;
};

function localised(value: LocalisedText | string | null): string[] {
  if (value === null) return [];
  if (typeof value === 'string') {
    try {
      return localised(JSON.parse(value) as LocalisedText);
    } catch {
      return [value];
    }
  }
  return Object.values(value).filter((v): v is string => typeof v === 'string');
}

/**
 * The normalised text of a listing: its titles first, then its slugs (its reference: a website's own ids are the
 * slug), its places' names and slugs, and its descriptions, in both languages.
 */
export function listingSearchText(source: SearchSource): string {
  const places = source.places.flatMap((p) => (p ? [...localised(p.name), p.slug_en ?? '', p.slug_ar ?? ''] : []));
  const parts = [...localised(source.title), source.slug_en, source.slug_ar ?? '', ...places, ...localised(source.description)];
  return normaliseSearch(parts.join(' '));
}

/** Listings whose text is written per statement of {@link fillSearchText}. */
const fillBatch = 500;

/**
 * Writes the search text of every listing that has none (migration 0050's back-fill; the listings of a renamed
 * place), of one company or of all, in statements of {@link fillBatch}. Returns how many it wrote.
 */
export async function fillSearchText(db: Executor, companyId?: string): Promise<number> {
  let written = 0;
  for (;;) {
    const place = (column: 'l.city_id' | 'l.area_id' | 'l.project_id') =>
      sql<SearchPlace | null>`(select json_build_object('name', a.name, 'slug_en', a.slug_en, 'slug_ar', a.slug_ar)
        from areas a where a.id = ${sql.ref(column)})`;
    const rows = await db
      .selectFrom('listings as l')
      .select(['l.id', 'l.title', 'l.description', 'l.slug_en', 'l.slug_ar'])
      .select([place('l.city_id').as('city'), place('l.area_id').as('area'), place('l.project_id').as('project')])
      .where('l.search_text', 'is', null)
      .$if(companyId !== undefined, (qb) => qb.where('l.company_id', '=', companyId as string))
      .orderBy('l.id')
      .limit(fillBatch)
      .execute();
    if (rows.length === 0) return written;
    const values = rows.map((r) => ({
      id: r.id,
      text: listingSearchText({ ...r, places: [r.city, r.area, r.project] }),
    }));
    await sql`
      update listings l set search_text = v.text
        from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(id uuid, text text)
       where l.id = v.id and l.search_text is null`.execute(db);
    written += rows.length;
    if (rows.length < fillBatch) return written;
  }
}

/** A word of `listing_search_words` is kept to this many characters (migration 0054; a query has no longer word). */
const storedWordLength = 200;

/** A word `s.word` of the company's catalogue (`listing_search_words as s`) where {@link wordPattern} finds `word`. */
function heldWord(word: string): RawBuilder<boolean> {
  if (hasVariants(word)) return sql<boolean>`s.word ~ ${startPattern(word)}`;
  return startsWith(word);
}

/**
 * A word `s.word` that starts with `word` as typed: a range of the primary key (`word` is in code point order,
 * `collate "C"`), from the word to the word followed by the last code point, which no normalised word holds. A range,
 * not `like 'word%'`: a named statement's generic plan can use a range whose ends are parameters, not a `like`.
 */
function startsWith(word: string): RawBuilder<boolean> {
  const start = Array.from(word).slice(0, storedWordLength).join('');
  return sql<boolean>`(s.word >= ${start} and s.word < ${`${start}\u{10FFFF}`})`;
}

/** Some word of the company's catalogue (`listing_search_words as s`) meets the condition. */
function anyWord(companyId: string, condition: RawBuilder<boolean>): RawBuilder<boolean> {
  return sql<boolean>`exists (select from listing_search_words s where s.company_id = ${companyId} and ${condition})`;
}

/**
 * Whether a published listing of the company can hold the word at all: some word of its catalogue (migration 0054)
 * matches it, looked up by the words' trigram index. The statement evaluates it once, before it reads a listing; when
 * it is false the page is empty at once (the scans of the listings would otherwise read every index entry to find
 * nothing).
 */
function wordKnown(companyId: string, word: string): RawBuilder<boolean> {
  // A word typed right is known by the primary key alone: the pattern's lookup then never runs.
  if (!hasVariants(word)) return anyWord(companyId, startsWith(word));
  // Counted, not `exists`: a generic plan expects `exists` to stop early and tests the company's words one by one
  // (30 ms at 100,000), where counting takes the trigram index (a few words match).
  return sql<boolean>`(${anyWord(companyId, startsWith(word))} or (select count(*) from listing_search_words s
    where s.company_id = ${companyId} and ${heldWord(word)}) > 0)`;
}

/**
 * The query's words as the conditions of a listing `l` of the company: every word found (by prefix, or one edit away),
 * in its text. What is found is the patterns' answer alone; the catalogue's words only answer "none" sooner. The
 * pattern is matched against the text after a space (`' ' || search_text`: the same matches, as no word starts with a
 * space), which only the trigram index of migration 0065 serves: a word few listings hold is read through it, never
 * through the GiST index of the relevance order, whose trigram signatures cannot narrow a bitmap scan.
 */
export function searchConditions(words: readonly string[], companyId: string): RawBuilder<boolean> {
  // Planned for each query's words, never kept as a generic plan (lib/db/prepared.ts `plannedEachRun`).
  return sql<boolean>`${sql.raw(plannedEachRun)} (${sql.join(
    [...words.map((w) => wordKnown(companyId, w)), ...words.map((w) => sql<boolean>`(' ' || l.search_text) ~ ${wordPattern(w)}`)],
    sql` and `,
  )})`;
}

/**
 * The word a query word is measured as in the relevance order: itself when the company's catalogue holds it as a word
 * (or it is a number: a number is found by prefix only, and stands for no other); else the catalogue's word it most
 * likely stands for, of the words it finds (a word it starts, as a visitor types, or, for a word of 5 letters or more,
 * one edit away): the most trigram-similar, the first in code point order among equals. A word no catalogue word
 * matches is measured as typed (it finds nothing).
 */
function measuredWord(companyId: string, word: string): RawBuilder<string> {
  if (isNumberWord(word)) return sql<string>`${word}::text`;
  return sql<string>`case when ${anyWord(companyId, sameWord(word))} then ${word}::text
    else coalesce((select s.word collate "default" from listing_search_words s where s.company_id = ${companyId} and ${heldWord(word)}
      order by similarity(s.word, ${word}) desc, s.word limit 1), ${word}::text) end`;
}

/** A word `s.word` of the catalogue equal to `word` (as stored: its first {@link storedWordLength} characters). */
function sameWord(word: string): RawBuilder<boolean> {
  return sql<boolean>`s.word = ${Array.from(word).slice(0, storedWordLength).join('')}`;
}

/**
 * Every word is a word of the company's catalogue as it is (migration 0054): else no published listing holds it whole.
 * Looked up by the primary key once per statement, before a listing is read: a word that only starts catalogue words
 * (`marin`) would otherwise send the first tier through every listing whose text holds its trigrams.
 */
export function catalogueHoldsWords(companyId: string, words: readonly string[]): RawBuilder<boolean> {
  if (words.length === 0) return sql<boolean>`true`;
  return sql<boolean>`(${sql.join(
    words.map((w) => anyWord(companyId, sameWord(w))),
    sql` and `,
  )})`;
}

/**
 * The words a query is measured as ({@link measuredWord}), read in one statement; without a database trip when every
 * word is a number (each is then measured as typed).
 */
export async function measuredWords(db: Executor, companyId: string, words: readonly string[]): Promise<string[]> {
  if (words.every(isNumberWord)) return [...words];
  const measured = sql.join(
    words.map((w) => measuredWord(companyId, w)),
    sql`, `,
  );
  // Planned for each query's words (lib/db/prepared.ts `plannedEachRun`), as the listings' statements are; the mark
  // after `select`, so that the statement still reads as a read (lib/db/neon.ts `isRead`: over HTTP at the edge).
  const { rows } = await sql<{ words: string[] }>`select ${sql.raw(plannedEachRun)} array[${measured}] as words`.execute(db);
  return rows[0]?.words ?? [...words];
}

/**
 * A listing's distance from the query's measured words ({@link measuredWords}), nearest first: pg_trgm's word distance
 * of the words in the text (`search_text <->> query`, one minus `word_similarity`: 0 when the text holds them as
 * written, more the further its nearest extent), a `real`. With the tie ({@link searchTie}) it is the order the GiST
 * index of migration 0052 returns rows in, so a page reads only its own rows.
 */
export function searchDistanceTo(measured: readonly string[]): RawBuilder<number> {
  return sql<number>`(l.search_text <->> ${measured.join(' ')}::text)`;
}

/** The tie of {@link searchDistanceTo}: the listing's own `search_tie`, as the index orders it (its distance from 0). */
export const searchTie = sql<number>`(l.search_tie <-> 0::float8)`;

/**
 * A listing `l` whose text holds every query word whole, as typed (a word of the text equal to it): the first tier of
 * the relevance order. Each word a pattern over the text after a space, as {@link searchConditions}' are, so the
 * text's trigram index (migration 0065) serves a word few listings hold. The words are normalised (letters and
 * digits), so they need no escaping.
 */
export function holdsWholeWords(words: readonly string[]): RawBuilder<boolean> {
  if (words.length === 0) return sql<boolean>`true`;
  return sql<boolean>`(${sql.join(
    words.map((w) => sql<boolean>`(' ' || l.search_text) ~ ${`(^| )${w}( |$)`}`),
    sql` and `,
  )})`;
}

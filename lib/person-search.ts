import { type RawBuilder, sql } from 'kysely';
import type { Executor } from './db/index';
import type { Company } from '../schema/platform/db';
import { emailKey, normalisePhone, phoneCountryOf } from './people-keys';
import { normaliseSearch, wordPattern } from './search-text';

/**
 * Staff's search of people (issue 36: `q` on /contacts, /leads, /deals). Names are matched on `contacts.search_name`
 * (migration 0050): the name's words normalised by lib/search-text.ts (the one normalisation), with the common
 * spellings of a name brought to one key; phones on E.164 and on their last digits; emails case-insensitively.
 * Erased people are never found (their name, email and phone are gone, and the conditions exclude them).
 */

/**
 * Common given names in their Latin spellings, by one key (the Arabic, normalised). A name written in either script
 * stores its key, a query word that is one of these spellings looks for the key: Mohammed finds Muhammad and محمد.
 */
const spellings: Record<string, string[]> = {
  محمد: ['mohammed', 'muhammad', 'mohamed', 'mohammad', 'muhammed', 'mohamad', 'muhamad', 'mohd', 'mhd', 'mouhamed', 'mohamud'],
  احمد: ['ahmed', 'ahmad', 'ahmet', 'ahmead'],
  علي: ['ali', 'aly'],
  عمر: ['omar', 'umar', 'omer'],
  يوسف: ['yousef', 'yusuf', 'youssef', 'yousuf', 'yosef', 'yousif'],
  خالد: ['khalid', 'khaled'],
  حسن: ['hassan', 'hasan'],
  حسين: ['hussein', 'hussain', 'husain', 'hussien', 'hossein', 'husein'],
  عبدالله: ['abdullah', 'abdulla', 'abdallah', 'abdalla'],
  ابراهيم: ['ibrahim', 'ebrahim', 'ibraheem'],
  سعيد: ['saeed', 'saied', 'saeid'],
  راشد: ['rashid', 'rashed'],
  مصطفي: ['mustafa', 'moustafa', 'mostafa', 'mustapha'],
  فاطمه: ['fatima', 'fatimah', 'fatma', 'fatemeh'],
  عايشه: ['aisha', 'aysha', 'ayesha', 'aishah'],
  مريم: ['maryam', 'mariam', 'meryem'],
  ليلي: ['layla', 'laila', 'leila', 'leyla'],
  نور: ['noor', 'nour', 'nur'],
};
const keyOf = new Map<string, string>(
  Object.entries(spellings).flatMap(([key, latin]) => [[key, key] as const, ...latin.map((l) => [l, key] as const)]),
);

/** The Latin article as a word of its own (Al-Hashimi, El Sayed): not searched, on either side. */
const latinArticles = new Set(['al', 'el']);

/** A name's or a query's words: normalised, without a standalone Latin article. */
function nameWords(text: string): string[] {
  return normaliseSearch(text)
    .split(' ')
    .filter((w) => w.length > 0 && !latinArticles.has(w));
}

/**
 * What `contacts.search_name` holds for a name: its words, each name's key where it has one, and a word that begins
 * with an article written as one word (Alhashimi, Elsayed) also without it.
 */
export function personSearchName(name: string): string {
  const words = nameWords(name);
  const extra = words.flatMap((w) => {
    const key = keyOf.get(w);
    const joined = /^(al|el)[a-z]{4,}$/.test(w) ? [w.slice(2)] : [];
    return [...(key && key !== w ? [key] : []), ...joined];
  });
  return [...new Set([...words, ...extra])].join(' ');
}

/** People whose search name is written per statement of {@link fillContactSearch}. */
const fillBatch = 500;

/**
 * Writes the search name of the company's people whose name changed since it was written (or never was): the read
 * before a search. One statement when none did; moves neither `updated_at` nor `version` (migration 0050). A name
 * changed meanwhile is left for the next search (the update is guarded by the name read).
 */
export async function fillContactSearch(db: Executor, companyId: string): Promise<void> {
  for (;;) {
    const rows = await db
      .selectFrom('contacts')
      .select(['id', 'name'])
      .where('company_id', '=', companyId)
      .where('search_name', 'is', null)
      .where('name', 'is not', null)
      .where('erased', '=', false)
      .limit(fillBatch)
      .execute();
    if (rows.length === 0) return;
    const values = rows.map((r) => ({ id: r.id, name: r.name, text: personSearchName(r.name ?? '') }));
    await sql`
      update contacts c set search_name = v.text
        from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(id uuid, name text, text text)
       where c.id = v.id and c.company_id = ${companyId} and c.name = v.name and c.search_name is null`.execute(db);
    if (rows.length < fillBatch) return;
  }
}

/** A query that reads as a phone number: digits (any script) with the usual punctuation, at least 4 digits. */
function phoneDigits(q: string): string | undefined {
  const folded = normaliseSearch(q).replaceAll(' ', '');
  if (!/^[0-9]{4,15}$/.test(folded)) return undefined;
  if (!/^[\s+()./\-0-9\u0660-\u0669\u06F0-\u06F9]+$/.test(q)) return undefined;
  return folded;
}

/**
 * The people `q` finds, as a condition on a contact row `alias` (`contacts`, `person`): an email (a `q` with `@`)
 * by its key, case-insensitive; a phone (digits) by its E.164 form read in the company's country, or by its last
 * digits; otherwise every word of the name (by prefix, one edit away from five letters, a name's other spellings).
 * Erased people never match.
 */
export function personMatches(alias: string, q: string, country: string | undefined): RawBuilder<boolean> {
  const ref = (column: string) => sql.ref(`${alias}.${column}`);
  const alive = sql`not ${ref('erased')}`;
  if (q.includes('@')) {
    const key = emailKey(q).replace(/[\\%_]/g, (ch) => `\\${ch}`);
    return sql<boolean>`(${alive} and ${ref('email_key')} like ${`${key}%`})`;
  }
  const digits = phoneDigits(q);
  if (digits !== undefined) {
    let e164: string | null = null;
    try {
      e164 = normalisePhone(q, country);
    } catch {
      e164 = null;
    }
    return sql<boolean>`(${alive} and (${ref('phone')} = ${e164} or ${ref('phone')} like ${`%${digits}`}))`;
  }
  const words = [...new Set(nameWords(q))].slice(0, 12);
  if (words.length === 0) return sql<boolean>`false`;
  const conditions = words.map((w) => {
    const key = keyOf.get(w);
    // A spelling of a common name finds the name's key, and, typed as the start of a word, what it begins (ali: Alia).
    const pattern = key ? `(^| )(${key}( |$)|${w})` : wordPattern(w);
    return sql`${ref('search_name')} ~ ${pattern}`;
  });
  return sql<boolean>`(${alive} and ${sql.join(conditions, sql` and `)})`;
}

/**
 * The condition of a list's `q` on its person (`alias`), after writing the search names it reads; none without `q`.
 * The route narrows its list with it (lib/resources.ts `narrowed`).
 */
export async function personSearch(
  db: Executor,
  company: Company,
  alias: string,
  q: string | undefined,
): Promise<RawBuilder<boolean> | undefined> {
  if (q === undefined) return undefined;
  await fillContactSearch(db, company.id);
  return personMatches(alias, q, phoneCountryOf(company));
}

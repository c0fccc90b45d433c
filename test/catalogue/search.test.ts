import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import corpus from '../fixtures/search/corpus.json' with { type: 'json' };
import { demo } from '../support/harness';
import { queryWords } from '../../lib/search-text';
import { catalogue, importDoc, walk } from './support';
import { createCompany, importCatalogue, useApi } from '../support/world';

/**
 * Words search of listings (issue 36, `GET /listings?q=`) over a corpus of 65 listings in the style of the portals'
 * pages, in English and Arabic (test/fixtures/search/corpus.json): every listing found by its own titles and slugs, a
 * table of queries (misspelt, with and without the article, with diacritics, digits in either script) with the
 * listings each must and must not find, relevance paging, refusals, and a place renamed.
 */

const api = useApi({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000' } });
let host: string;
let companyId: string;
const listings = corpus.listings;
const short = (slug: string) => slug.replace(/^search-/, '');

beforeAll(async () => {
  const company = await createCompany(api);
  ({ host } = company);
  companyId = company.id;
  await importCatalogue(api, company.id, {
    areas: [...demo.areas, ...corpus.areas],
    property_types: demo.property_types,
    listings,
  });
});

const search = async (query: Record<string, string | number>) => {
  const { pages, results } = await walk(api, host, '/api/v1/listings', { page_size: 100, ...query });
  expect(pages.length).toBe(1);
  return results.map((r: { slug: { en: string } }) => short(r.slug.en));
};

describe('GET /listings?q=: every listing is found by what it is called', () => {
  it('has a corpus of at least 60 listings in both languages', () => {
    expect(listings.length).toBeGreaterThanOrEqual(60);
    for (const l of listings) expect(l.title.en && l.title.ar).toBeTruthy();
  });

  it.each(listings.map((l) => [short(l.slug.en), l] as const))('finds %s by its titles and its slugs', async (name, l) => {
    for (const q of [l.title.en, l.title.ar, l.slug.en, l.slug.ar]) expect(await search({ q }), q).toContain(name);
    // Its reference (the slug) finds it alone.
    expect(await search({ q: l.slug.en })).toEqual([name]);
  });
});

/** Queries and the listings (corpus numbers) each must find and must not find. */
const table: Array<{ q: string; must: string[]; not: string[] }> = [
  { q: 'marina', must: ['s01', 's02', 's03', 's04', 's38', 's39', 's48', 's56', 's57', 's64'], not: ['s13', 's26', 's09'] },
  { q: 'المارينا', must: ['s01', 's02', 's03', 's38', 's39', 's57'], not: ['s13', 's26', 's09'] },
  { q: 'مارينا', must: ['s01', 's02', 's03', 's38', 's39', 's57'], not: ['s13', 's26', 's09'] },
  { q: 'marena', must: ['s01', 's38', 's39'], not: ['s13', 's26'] },
  { q: 'jumeira', must: ['s13', 's06', 's30'], not: ['s01', 's26'] },
  { q: 'jumiera', must: ['s13', 's06'], not: ['s01', 's26'] },
  { q: 'البرشاء', must: ['s26', 's27', 's28', 's29', 's08'], not: ['s01', 's13'] },
  { q: 'برشاء', must: ['s26', 's27', 's28', 's29', 's08'], not: ['s01', 's13'] },
  { q: 'البرشا', must: ['s26', 's27', 's28', 's29'], not: ['s01', 's13'] },
  { q: 'Al Barsha', must: ['s26', 's27', 's28', 's29', 's08'], not: ['s01', 's13'] },
  { q: 'barsha', must: ['s26', 's27', 's28', 's29', 's08'], not: ['s01', 's13'] },
  { q: 'اطلاله بحريه', must: ['s04'], not: ['s13', 's26'] },
  { q: 'إطْلالَةٌ بَحْرِيَّة', must: ['s04'], not: ['s13', 's26'] },
  { q: 'مُؤَجَّرَة', must: ['s65', 's18'], not: ['s01', 's13'] },
  { q: 'موجره', must: ['s65', 's18'], not: ['s01', 's13'] },
  { q: 'شـــقة فاخـــرة', must: ['s65'], not: ['s13'] },
  { q: '١٢ شيك', must: ['s23'], not: ['s02', 's01'] },
  { q: '12 cheques', must: ['s23'], not: ['s02', 's01'] },
  { q: '۱۲ cheques', must: ['s23'], not: ['s02', 's01'] },
  { q: 'District 12', must: ['s40'], not: ['s23', 's01'] },
  { q: 'الحي ١٢', must: ['s40'], not: ['s01'] },
  { q: 'cafe residence', must: ['s48'], not: ['s50', 's01'] },
  { q: 'CAFÉ', must: ['s48'], not: ['s01'] },
  { q: 'pentouse', must: ['s03', 's12', 's39'], not: ['s01', 's13'] },
  { q: 'burj khalifa', must: ['s09', 's42', 's46', 's60'], not: ['s13', 's01'] },
  { q: 'برج خليفة', must: ['s09', 's42', 's46', 's60'], not: ['s13', 's01'] },
  { q: 'villa', must: ['s13', 's19', 's24', 's27'], not: ['s02', 's09'] },
  { q: 'فيلا', must: ['s13', 's27', 's19'], not: ['s02', 's09'] },
  { q: 'jvc', must: ['s07', 's08', 's40', 's47', 's62'], not: ['s01', 's13'] },
  { q: 'saadiyat', must: ['s24', 's25', 's45', 's61'], not: ['s22', 's01'] },
  { q: 'السعديات', must: ['s24', 's25', 's45', 's61'], not: ['s22', 's01'] },
  { q: 'السعدييات', must: ['s24', 's25', 's45', 's61'], not: ['s22', 's01'] },
  { q: 'palm jumeirah villa', must: ['s13', 's37'], not: ['s08', 's19', 's01'] },
  { q: 'townhous', must: ['s06', 's20', 's40', 's55'], not: ['s01', 's13'] },
  { q: 'marina 2 bedroom', must: ['s01'], not: ['s13', 's09'] },
  { q: 'xyzzy', must: [], not: ['s01'] },
];

describe('GET /listings?q=: the table of queries', () => {
  it.each(table)('q=$q', async ({ q, must, not }) => {
    const found = await search({ q });
    for (const name of must) expect(found, `${q} must find ${name}`).toContain(name);
    for (const name of not) expect(found, `${q} must not find ${name}`).not.toContain(name);
  });
});

describe('GET /listings?q=: order and pages', () => {
  it('orders by relevance by default, and keeps the cursor stable page after page', async () => {
    const all = await search({ q: 'apartment' });
    expect(all.length).toBeGreaterThan(10);
    for (const page_size of [1, 3, 7]) {
      const { pages, results } = await walk(api, host, '/api/v1/listings', { q: 'apartment', page_size });
      expect(results.map((r: { slug: { en: string } }) => short(r.slug.en))).toEqual(all);
      expect(pages.every((p) => p.length > 0)).toBe(true);
    }
    expect(await search({ q: 'apartment', sort: 'relevance' })).toEqual(all);
  });

  it('puts the listings holding every word whole first, then the rest nearest first, across pages', async () => {
    // Which listings hold every word of the query as a word of their text, asked of the stored text directly.
    const holding = async (q: string) => {
      const words = queryWords(q);
      const { rows } = await sql<{ slug_en: string }>`select slug_en from listings
        where company_id = ${companyId} and status = 'published' and ${sql.join(
          words.map((w) => sql`(' ' || search_text) ~ ${`(^| )${w}( |$)`}`),
          sql` and `,
        )}`.execute(api.db);
      return new Set(rows.map((r) => short(r.slug_en)));
    };
    // Each query has listings holding its words whole and listings found only by a longer word or one letter away.
    for (const q of ['villa', 'villas', 'bedroom', 'tower', 'sea view']) {
      const all = await search({ q });
      const whole = await holding(q);
      expect(whole.size, q).toBeGreaterThan(0);
      expect(all.length - whole.size, q).toBeGreaterThan(0);
      expect(new Set(all.slice(0, whole.size)), q).toEqual(whole);
      // Every page size walks across the tiers' border without repeating or losing a listing.
      for (const page_size of [1, 2, whole.size, whole.size + 1]) {
        const { results } = await walk(api, host, '/api/v1/listings', { q, page_size });
        expect(
          results.map((r: { slug: { en: string } }) => short(r.slug.en)),
          `${q} by ${page_size}`,
        ).toEqual(all);
      }
    }
  });

  it('measures a word typed in part as the catalogue word it completes', async () => {
    // "townhous" is no word of the corpus; "townhouse" is: the listings holding it whole come first.
    const found = await search({ q: 'townhous' });
    const completed = await search({ q: 'townhouse' });
    expect(found.length).toBeGreaterThan(0);
    expect(found.slice(0, completed.length)).toEqual(completed);
  });

  it('puts listings holding every word as typed before those found one letter away', async () => {
    const found = await search({ q: 'marena' });
    // "Marena" is no word of the corpus: every listing is found one letter away, and none ranks as typed.
    expect(found.length).toBeGreaterThan(0);
    const typed = await search({ q: 'marina gate' });
    expect(typed[0]).toBe('s04');
  });

  it('takes the other orders with q, filtering only', async () => {
    const relevance = await search({ q: 'villa' });
    const newest = await search({ q: 'villa', sort: 'newest' });
    expect([...newest].sort()).toEqual([...relevance].sort());
  });

  it('refuses a cursor of another query, a q over 200 characters, and sort=relevance without q', async () => {
    const read = catalogue(api, host).client;
    const first = await read.GET('/api/v1/listings', { params: { query: { q: 'apartment', page_size: 2 } as never } });
    const cursor = (first.data as { next_cursor: string }).next_cursor;
    const other = await read.GET('/api/v1/listings', { params: { query: { q: 'villa', cursor } as never } });
    expect(other.response.status).toBe(400);
    expect((other.error as { errors: Array<{ path: string }> }).errors[0]?.path).toBe('cursor');
    // The query's own cursor, its numbers forged out of the database's range (a real, a double), is refused the same.
    const [order, key, tie] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as string[];
    for (const values of [
      ['1e999', tie],
      ['1e-999', tie],
      [key, '1e999'],
      [key, '1e-400'],
      ['0', '-1e309'],
    ]) {
      const forged = Buffer.from(JSON.stringify([order, ...values])).toString('base64url');
      const refused = await read.GET('/api/v1/listings', { params: { query: { q: 'apartment', cursor: forged } as never } });
      expect(refused.response.status, JSON.stringify(values)).toBe(400);
      expect((refused.error as { code: string }).code).toBe('invalid_cursor');
    }
    const long = await read.GET('/api/v1/listings', { params: { query: { q: 'a'.repeat(201) } as never } });
    expect(long.response.status).toBe(400);
    expect((long.error as { errors: Array<{ path: string }> }).errors[0]?.path).toBe('q');
    const at200 = await read.GET('/api/v1/listings', { params: { query: { q: 'a'.repeat(200) } as never } });
    expect(at200.response.status).toBe(200);
    // The longest words that still get their one-letter variants, as many as 200 characters hold: answered.
    for (const letter of ['a', 'م']) {
      const q = Array.from({ length: 6 }, (_, i) => `${letter.repeat(31)}${i}`).join(' ');
      const worst = await read.GET('/api/v1/listings', { params: { query: { q } as never } });
      expect(worst.response.status, q).toBe(200);
    }
    const relevance = await read.GET('/api/v1/listings', { params: { query: { sort: 'relevance' } as never } });
    expect(relevance.response.status).toBe(400);
    expect((relevance.error as { errors: Array<{ path: string }> }).errors[0]?.path).toBe('sort');
  });

  it('reads a q of punctuation only as no q', async () => {
    expect((await search({ q: ' -- ' })).length).toBe(listings.length);
  });

  it('searches the map points too', async () => {
    const body = await catalogue(api, host).map({ q: 'marina', page_size: 100 });
    expect(Array.isArray(body.results)).toBe(true);
  });
});

describe('GET /listings?q=: a place renamed', () => {
  it('finds its listings by the new name, not the old, once the import that renamed it is committed', async () => {
    expect(await search({ q: 'Deira' })).toEqual(expect.arrayContaining(['s34', 's35', 's52']));
    const renamed = corpus.areas.map((a) => (a.slug.en === 'deira' ? { ...a, name: { en: 'Old Dubai', ar: 'دبي القديمة' } } : a));
    const { response } = await importDoc(api, companyId, { areas: renamed, property_types: [], listings: [] });
    expect(response.status).toBe(200);
    expect(await search({ q: 'Old Dubai' })).toEqual(expect.arrayContaining(['s34', 's35']));
    // s52's description says "old Dubai" too; s34 and s35 only through their area's name.
    const stillDeira = await search({ q: 'Deira' });
    // The slug of the area is still "deira": its listings are still found by it.
    expect(stillDeira).toEqual(expect.arrayContaining(['s34', 's35']));
    expect(await search({ q: 'القديمة' })).toEqual(expect.arrayContaining(['s34', 's35', 's52']));
  });
});

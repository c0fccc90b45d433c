import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type ServerType, serve } from '@hono/node-server';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBatchSize } from '../../functions/catalogue/content';
import { demo } from '../support/harness';
import { adminOf, createCompany, useApi } from '../support/world';
import { catalogue, importDoc } from './support';
import { binArgs } from '../support/server-process';

const api = useApi();

/** `n` published listings in the demo's places, slugs `bulk-1` … `bulk-n`. */
const bulk = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    slug: { en: `bulk-${i + 1}` },
    listing_type: 'sale',
    status: 'published',
    title: { en: `Bulk ${i + 1}` },
    city: 'dubai',
    bedrooms: i % 4,
    photos: [{ key: `bulk/${i + 1}.jpg`, alt: { en: 'Front' } }],
  }));

const lines = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

const listingCount = async (companyId: string) =>
  Number(
    (
      await api.db
        .selectFrom('listings')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('company_id', '=', companyId)
        .executeTakeFirstOrThrow()
    ).n,
  );

/** An import asking for the streamed answer (a line of JSON per batch), through the typed admin client; its text. */
const streamed = (companyId: string, doc: unknown) =>
  adminOf(api).POST('/admin/v1/companies/{company_id}/catalogue/import', {
    params: { path: { company_id: companyId } },
    body: doc as never,
    headers: { Accept: 'application/x-ndjson' },
    parseAs: 'text',
  });

describe('catalogue import in batches', () => {
  it('streams a line per batch, then the counts, and stores every listing with its photo', async () => {
    const company = await createCompany(api);
    const listings = bulk(2 * importBatchSize + 1);
    const res = await streamed(company.id, { areas: demo.areas, listings });
    expect(res.response.status).toBe(200);
    expect(res.response.headers.get('content-type')).toBe('application/x-ndjson');
    // A streamed answer carries the platform's headers as any other (lib/security-headers.ts).
    expect(res.response.headers.get('request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(lines(res.data ?? '')).toEqual([
      { progress: { listings: { done: importBatchSize, total: listings.length }, batch: 1, batches: 3 } },
      { progress: { listings: { done: 2 * importBatchSize, total: listings.length }, batch: 2, batches: 3 } },
      { progress: { listings: { done: listings.length, total: listings.length }, batch: 3, batches: 3 } },
      { result: { areas: demo.areas.length, property_types: 0, services: 0, team: 0, listings: listings.length } },
    ]);
    expect(await listingCount(company.id)).toBe(listings.length);
    const photos = await api.db
      .selectFrom('listing_photos as p')
      .innerJoin('listings as l', 'l.id', 'p.listing_id')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('l.company_id', '=', company.id)
      .executeTakeFirstOrThrow();
    expect(Number(photos.n)).toBe(listings.length);
    const filters = await catalogue(api, company.host).filters();
    expect(filters.results.find((g: { type: string }) => g.type === 'sale').count).toBe(listings.length);
  });

  it('leaves nothing when the last batch fails, after earlier batches were written (the stream ends in the problem)', async () => {
    const company = await createCompany(api);
    const listings = [...bulk(2 * importBatchSize), { ...bulk(1)[0], slug: { en: 'last-one' }, city: 'atlantis' }];
    const res = await streamed(company.id, { areas: demo.areas, listings });
    const out = lines(res.data ?? '');
    expect(out.slice(0, 2).map((line) => line.progress?.batch)).toEqual([1, 2]);
    expect(out[2].error).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(out[2].error.detail).toContain('atlantis');
    expect(out).toHaveLength(3);
    expect(await listingCount(company.id)).toBe(0);
    const areas = await api.db.selectFrom('areas').select('id').where('company_id', '=', company.id).execute();
    expect(areas).toHaveLength(0);
    // Without the header the same import is one problem answer.
    const plain = await importDoc(api, company.id, { areas: demo.areas, listings });
    expect(plain.response.status).toBe(400);
    expect(plain.response.headers.get('content-type')).toBe('application/problem+json');
  });

  it('keeps the last of two listings with the same slug, as one upsert after the other would', async () => {
    const company = await createCompany(api);
    const [first, second] = [bulk(1)[0], { ...bulk(1)[0], title: { en: 'Second' }, photos: [] }];
    const res = await importDoc(api, company.id, { areas: demo.areas, listings: [first, second] });
    expect(res.response.status).toBe(200);
    const detail = await catalogue(api, company.host).listing('bulk-1');
    expect(detail.title.en).toBe('Second');
    expect(detail.photos).toEqual([]);
  });

  it('sets every holiday home of a batch its own terms and seasons, and a second import replaces them whole', async () => {
    const company = await createCompany(api);
    const home = (n: number, booking: Record<string, unknown>) => ({
      ...bulk(1)[0],
      slug: { en: `home-${n}` },
      listing_type: 'holiday_home',
      price: '500.00',
      price_period: 'night',
      booking,
    });
    const season = (name: string, starts_on: string, ends_on: string, nightly_price: string) => ({
      name,
      starts_on,
      ends_on,
      nightly_price,
    });
    const terms = async () =>
      api.db
        .selectFrom('holiday_home_terms as t')
        .innerJoin('listings as l', 'l.id', 't.listing_id')
        .select(['l.slug_en', 't.min_nights', 't.cleaning_fee', 't.check_in_time'])
        .select((eb) =>
          eb
            .selectFrom('holiday_home_seasons as s')
            .whereRef('s.listing_id', '=', 't.listing_id')
            .select(
              sql<string>`string_agg(s.name || ' ' || s.starts_on::text || ' ' || s.nightly_price::text, ', ' order by s.starts_on)`.as(
                'x',
              ),
            )
            .as('seasons'),
        )
        .where('l.company_id', '=', company.id)
        .orderBy('l.slug_en')
        .execute();
    const first = [
      home(1, { min_nights: 3, cleaning_fee: '450.00', seasons: [season('Winter', '2027-01-01', '2027-02-01', '900.00')] }),
      home(2, { min_nights: 2, seasons: [] }),
      home(3, {
        check_in_time: '14:00',
        seasons: [season('A', '2027-03-01', '2027-03-10', '100.00'), season('B', '2027-03-10', '2027-03-20', '200.00')],
      }),
    ];
    const made = await importDoc(api, company.id, { areas: demo.areas, listings: first });
    expect(made.response.status, JSON.stringify(made.error)).toBe(200);
    expect(await terms()).toEqual([
      {
        slug_en: 'home-1',
        min_nights: 3,
        cleaning_fee: '450.0000',
        check_in_time: '15:00:00',
        seasons: 'Winter 2027-01-01 900.0000',
      },
      { slug_en: 'home-2', min_nights: 2, cleaning_fee: '0.0000', check_in_time: '15:00:00', seasons: null },
      {
        slug_en: 'home-3',
        min_nights: 1,
        cleaning_fee: '0.0000',
        check_in_time: '14:00:00',
        seasons: 'A 2027-03-01 100.0000, B 2027-03-10 200.0000',
      },
    ]);
    // Seasons overlapping the ones they replace: the old ones are gone before the new ones go in.
    const second = [
      home(1, { min_nights: 5, seasons: [season('Winter', '2027-01-15', '2027-02-15', '950.0000')] }),
      home(2, { min_nights: 2, seasons: [season('New', '2027-01-01', '2027-01-10', '300.0000')] }),
      home(3, { seasons: [] }),
    ];
    expect((await importDoc(api, company.id, { areas: demo.areas, listings: second })).response.status).toBe(200);
    expect(await terms()).toEqual([
      {
        slug_en: 'home-1',
        min_nights: 5,
        cleaning_fee: '0.0000',
        check_in_time: '15:00:00',
        seasons: 'Winter 2027-01-15 950.0000',
      },
      { slug_en: 'home-2', min_nights: 2, cleaning_fee: '0.0000', check_in_time: '15:00:00', seasons: 'New 2027-01-01 300.0000' },
      { slug_en: 'home-3', min_nights: 1, cleaning_fee: '0.0000', check_in_time: '15:00:00', seasons: null },
    ]);
  });

  describe('the CLI', () => {
    let server: ServerType;
    let url = '';
    beforeAll(async () => {
      await new Promise<void>((resolve) => {
        server = serve({ fetch: api.app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
          url = `http://127.0.0.1:${info.port}`;
          resolve();
        });
      });
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('shows a line per batch on stderr and prints the counts on stdout', async () => {
      const company = await createCompany(api);
      const file = join(tmpdir(), `import-${company.id}.json`);
      await writeFile(file, JSON.stringify({ areas: demo.areas, listings: bulk(importBatchSize + 1) }));
      const env = { ...process.env, ADMIN_URL: url, ADMIN_TOKEN: api.adminToken };
      // bin/admin.ts as this run bundled it (test/support/global-setup.ts)
      const args = [...binArgs('admin.ts'), 'catalogue', 'import', company.id, file];
      const { stdout, stderr } = await promisify(execFile)(process.execPath, args, { env });
      expect(JSON.parse(stdout)).toMatchObject({ listings: importBatchSize + 1 });
      expect(stderr).toContain(`batch 1/2: ${importBatchSize}/${importBatchSize + 1} listings`);
      expect(stderr).toContain(`batch 2/2: ${importBatchSize + 1}/${importBatchSize + 1} listings`);
    });
  });
});

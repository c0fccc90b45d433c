import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderAndStore, renderContext, renderFormat, renderSources } from '../../functions/catalogue/renders';
import { type TestClient, testClient } from '../support/client';
import { createTestApi, openTestDatabase, type TestApi, statementLog } from '../support/harness';
import { listingIdOf, storedRender } from './presented';
import { patchSettings } from './support';
import { demoCompany } from '../support/world';

/**
 * The read path's fill (functions/catalogue/renders.ts): a stale form is rendered by the read and stored, in a
 * fixed number of statements whatever the page size; a change committed while a read renders is never
 * overwritten by that read's older render; a read never waits on a writer's lock.
 */

let statements: string[] = [];
const log = statementLog(() => statements);

let api: TestApi;
let company: { id: string; host: string };
/** The typed client without a key: what anyone may read. */
let client: TestClient;

beforeAll(async () => {
  api = await createTestApi({
    handle: await openTestDatabase({ log }),
    env: { CATALOGUE_RESPONSE_CACHE_MB: '0', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000000' },
  });
  company = await demoCompany(api);
  client = testClient(api, { host: company.host });
  await api.platform.companyCache.settled();
});
afterAll(() => api.close());

const companyRow = () => api.db.selectFrom('companies').selectAll().where('id', '=', company.id).executeTakeFirstOrThrow();
const idOf = (slug: string) => listingIdOf(api, company.id, slug);
const stored = (id: string) => storedRender(api, id);

type Read = () => Promise<{ error?: unknown; response: Response }>;
/** The statements one read sent (it must answer 200). */
async function counted(read: Read) {
  statements = [];
  const { error, response } = await read();
  expect(response.status, JSON.stringify(error)).toBe(200);
  return statements;
}
const areas: Read = () => client.GET('/api/v1/areas');
const listings = (query: { sort?: 'newest'; page_size: number }) => () => client.GET('/api/v1/listings', { params: { query } });
/** A listing's detail, read as a published one's (a withdrawn one has no title: the test then fails on it). */
const listing = (slug: string) => async () => {
  const answer = await client.GET('/api/v1/listings/{slug}', { params: { path: { slug } } });
  return { ...answer, data: answer.data as Extract<NonNullable<typeof answer.data>, { title: unknown }> | undefined };
};

describe('statements of a page', () => {
  it('is one statement when its forms are stored (cold) or kept in memory, two when some are stored but not kept, three when any is stale', async () => {
    const forms: Array<[string, string, (page_size: number) => Read]> = [
      ['/api/v1/listings', 'card', (page_size) => () => client.GET('/api/v1/listings', { params: { query: { page_size } } })],
      [
        '/api/v1/listings/map',
        'map_point',
        (page_size) => () => client.GET('/api/v1/listings/map', { params: { query: { page_size } } }),
      ],
      [
        '/api/v1/listings/map?cover=1',
        'map_cover',
        (page_size) => () => client.GET('/api/v1/listings/map', { params: { query: { cover: '1', page_size } } }),
      ],
      ['/api/v1/sitemap', 'sitemap', (page_size) => () => client.GET('/api/v1/sitemap', { params: { query: { page_size } } })],
    ];
    await counted(areas); // anything done once per process is not per request
    for (const [path, column, page] of forms) {
      const selectsForms = (statement: string) => statement.includes(`"r"."${column}"`);
      // The process holds none of the company's forms of this kind yet: the page carries them.
      const cold = await counted(page(5));
      expect(cold, path).toHaveLength(1);
      expect(selectsForms(cold[0]!), cold[0]).toBe(true);
      // It holds five: the page selects its rows' revisions, then the stored forms it lacks.
      const more = await counted(page(100));
      expect(more, path).toHaveLength(2);
      expect(selectsForms(more[0]!), more[0]).toBe(false);
      expect(selectsForms(more[1]!), more[1]).toBe(true);
      // It holds them all: one statement of revisions, whatever the page's size.
      for (const size of [1, 5, 24, 100]) {
        const sent = await counted(page(size));
        expect(sent, path).toHaveLength(1);
        expect(selectsForms(sent[0]!), sent[0]).toBe(false);
      }
    }
    // Other settings: every stored form is stale for them; each page renders and stores its rows.
    await patchSettings(api, company.id, { hide_prices: true });
    // The changed company row is read again once, then kept in memory.
    await api.platform.companyCache.settled();
    await counted(areas);
    for (const size of [1, 5, 24, 100]) {
      const sent = await counted(listings({ sort: 'newest', page_size: size }));
      expect(sent, sent.join('\n')).toHaveLength(3);
      expect(sent[2]).toMatch(/update "?listing_renders"?/);
    }
    expect(await counted(listings({ sort: 'newest', page_size: 100 }))).toHaveLength(1);
    expect(await counted(listing('marina-gate-2br-sea-view'))).toHaveLength(1);
  });
});

describe('forms kept in memory', () => {
  it('are used at their revision only: a listing changed in SQL is sent as it is now', async () => {
    const slug = 'downtown-4br-penthouse';
    const id = await idOf(slug);
    const before = await listing(slug)();
    expect(before.response.status).toBe(200);
    expect((await counted(listing(slug)))[0]).not.toContain('"r"."detail"');
    const noticed = api.platform.companyCache.changed(company.id);
    await api.db
      .updateTable('listings')
      .set({ title: JSON.stringify({ en: 'Retitled in SQL' }) })
      .where('id', '=', id)
      .execute();
    // The changed company row (its catalogue version) is read again once, then kept in memory.
    await noticed;
    await counted(areas);
    const sent = await counted(listing(slug));
    expect(sent, sent.join('\n')).toHaveLength(3);
    const after = await listing(slug)();
    expect(after.data?.title.en).toBe('Retitled in SQL');
    expect(after.data?.bedrooms).toBe(before.data?.bedrooms);
  });

  it('never hold what a writing transaction rendered: a rolled-back revision committed again with other content', async () => {
    const slug = 'dubai-hills-4br-villa';
    const id = await idOf(slug);
    const render = await renderContext(await companyRow(), api.platform.config.MEDIA_BASE_URL, 16);
    expect(render.memory).not.toBeNull();
    await listing(slug)();
    // A write retitles the listing and renders its next revision in its transaction, as the catalogue's writes do.
    const retitle = (title: string, context: typeof render, after: () => void = () => {}) =>
      api.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('listings')
          .set({ title: JSON.stringify({ en: title }) })
          .where('id', '=', id)
          .execute();
        await renderAndStore(trx, context, await renderSources(trx, context, [id]));
        after();
      });
    // One rolls back after rendering.
    await expect(
      retitle('Rolled back', render, () => {
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    // The same revision number is committed with another title: the page then reads that revision as stored.
    const writer = await renderContext(await companyRow(), api.platform.config.MEDIA_BASE_URL);
    await retitle('Committed', writer);
    expect((await stored(id)).rendered_for).toBe(writer.tag);
    const res = await listing(slug)();
    expect(res.data?.title.en).toBe('Committed');
  });
});

describe('a read that renders while a change commits', () => {
  it('sends what it rendered but does not store it over the newer change', async () => {
    const id = await idOf('burj-vista-1br-burj-khalifa-view');
    await api.db.updateTable('listings').set({ bedrooms: 3 }).where('id', '=', id).execute();
    const render = await renderContext(await companyRow(), api.platform.config.MEDIA_BASE_URL);
    const sources = await renderSources(api.db, render, [id]);
    // Between the read of the listing's rows and the store, another transaction retitles the listing.
    await api.db
      .updateTable('listings')
      .set({ title: JSON.stringify({ en: 'Changed while rendering' }) })
      .where('id', '=', id)
      .execute();
    const rendered = await renderAndStore(api.db, render, sources);
    expect(JSON.parse(rendered.get(id)?.detail as string).bedrooms).toBe(3);
    expect(JSON.parse(rendered.get(id)?.detail as string).title.en).not.toBe('Changed while rendering');
    expect(await stored(id)).toEqual({ rendered_for: null, detail: null });
    const res = await listing('burj-vista-1br-burj-khalifa-view')();
    expect(res.data?.title.en).toBe('Changed while rendering');
    expect((await stored(id)).rendered_for).toBe(render.tag);
  });

  it.skipIf(!process.env.DATABASE_URL)(
    'never waits on a writer holding the listing: it answers, and stores nothing (PostgreSQL)',
    async () => {
      const id = await idOf('jvc-studio-investment');
      await api.db.updateTable('listings').set({ bedrooms: 4 }).where('id', '=', id).execute();
      await api.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('listings')
          .set({ title: JSON.stringify({ en: 'Not committed yet' }) })
          .where('id', '=', id)
          .execute();
        // The writer holds the listing's render row until it commits; a read that waited for it would never end.
        const res = await listing('jvc-studio-investment')();
        expect(res.response.status).toBe(200);
        expect(res.data?.bedrooms).toBe(4);
        expect(res.data?.title.en).not.toBe('Not committed yet');
      });
      expect((await stored(id)).rendered_for).toBeNull();
      const res = await listing('jvc-studio-investment')();
      expect(res.data?.title.en).toBe('Not committed yet');
    },
  );
});

describe('the render format', () => {
  it('is bumped whenever the presenter changes (stored forms of an older format are then rendered again)', async () => {
    // Changing how a listing is presented leaves every database's stored forms in the old shape unless
    // renderFormat is bumped: bump it, then record the new digests here. (Issue 32 recorded new digests without a
    // bump: photoUrl took a format, the catalogue's still WebP, and the listing type moved to lib/listings.ts. 3: prices
    // with their currency's digits, lib/money.ts. Issue 33 recorded a new digest without a bump: the permit's presenter
    // named, presentPermit, the output the same. Issue 34's bookings recorded a new digest without a bump: percentOf added,
    // no listing's output changed. Issue 35's tax recorded new digests without a bump: vatOfLine and xpathHundredths
    // added, no listing's output changed.)
    const digest = async (path: string) =>
      createHash('sha256')
        .update(await readFile(path))
        .digest('hex')
        .slice(0, 16);
    expect({
      renderFormat,
      'functions/catalogue/listings.present.ts': await digest('functions/catalogue/listings.present.ts'),
      'lib/localise.ts': await digest('lib/localise.ts'),
      'lib/media.ts': await digest('lib/media.ts'),
      'lib/money.ts': await digest('lib/money.ts'),
    }).toEqual({
      renderFormat: 3,
      'functions/catalogue/listings.present.ts': '51e87839d2027f3b',
      'lib/localise.ts': '3b1f2f54333a8351',
      'lib/media.ts': 'b6bf40259c53bd4a',
      'lib/money.ts': '54141aac6528efdf',
    });
  });
});

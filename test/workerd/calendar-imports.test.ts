/**
 * Calendar imports (issue 24) in the BUILT Workers in workerd (Neon driver → local PostgreSQL): the stay Worker's Cron
 * Trigger syncs a due import from a test channel on a loopback HTTP server (a development workspace may import from
 * loopback), the admin API's `POST …/calendar-imports/{id}/sync` syncs at once (the default bundle with the admin API
 * on), a 304 changes nothing, and the default Worker's own Cron Trigger (the deployed one-cron layout, every group's
 * jobs) syncs a due import too. The stay Worker's availability shows the imported nights and the home's turnover.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCompany } from '../../functions/admin/companies';
import { importCatalogue } from '../../functions/catalogue/content';
import demoCatalogue from '../../functions/catalogue/demo-catalogue.json' with { type: 'json' };
import { newDetailsKey } from '../../lib/crypto-jwe';
import { randomToken, sha256 } from '../../lib/crypto';
import type { DatabaseHandle } from '../../lib/db/index';
import { CatalogueImportInput } from '../../schema/catalogue/admin';
import { CreateCompanyInput } from '../../schema/platform/admin';
import { airbnbFeed, type Channel, testChannel } from '../stay/channel-feeds';
import { bundleOf, startWorkerd, type Workerd, workerAdminClient, workerClient } from './support';

const suffix = randomBytes(4).toString('hex');
const host = `c${suffix}.workerd.test`;
const adminToken = `adm_${randomToken(40)}`;
const details = newDetailsKey();
const villa = 'palm-5br-villa-private-beach-holiday';
const timeZone = 'Asia/Dubai';

/** Today + `offset` days in the company's zone (computed apart from lib/dates). */
function day(offset: number): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(),
  );
  const d = new Date(`${today}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + offset);
  return d.toISOString().slice(0, 10);
}

let workerd: Workerd | undefined;
let mf: Miniflare | undefined;
let handle: DatabaseHandle | undefined;
let channel: Channel;
let companyId = '';
let productionId = '';

beforeAll(async () => {
  channel = await testChannel();
  const bindings = {
    DETAILS_KEYS: JSON.stringify({ [details.kid]: details.key }),
    DETAILS_KEY_ID: details.kid,
    COMPANY_CACHE_TTL_SECONDS: '0',
  };
  workerd = await startWorkerd({
    template: inject('workerdTemplate'),
    databaseName: `pa_workerd_calendars_${suffix}`,
    applicationName: 'pa_workerd_calendars',
    workers: [
      { name: 'stay', bundle: bundleOf('stay'), bindings },
      { name: 'admin', bundle: bundleOf('default'), bindings: { ...bindings, ADMIN_API: 'on' } },
    ],
    seed: async (db) => {
      const company = await db.db.transaction().execute(async (trx) => {
        const made = await createCompany(
          trx,
          CreateCompanyInput.parse({
            name: 'Workerd Calendars',
            hosts: [host],
            // A development workspace: it may import from a loopback address (the test channel).
            environment: 'development',
            currency: 'AED',
            time_zone: timeZone,
            settings: { bookings_enabled: true },
          }),
        );
        await importCatalogue(trx, made, CatalogueImportInput.parse(demoCatalogue), { render: null, now: new Date() });
        return made;
      });
      companyId = company.id;
      productionId = await db.db.transaction().execute(async (trx) => {
        const made = await createCompany(
          trx,
          CreateCompanyInput.parse({
            name: 'Workerd Calendars Live',
            hosts: [`live-${host}`],
            environment: 'production',
            currency: 'AED',
            time_zone: timeZone,
          }),
        );
        await importCatalogue(trx, made, CatalogueImportInput.parse(demoCatalogue), { render: null, now: new Date() });
        return made.id;
      });
      await sql`update holiday_home_terms set turnover_days = 1 where listing_id =
        (select id from listings where company_id = ${companyId}::uuid and slug_en = ${villa})`.execute(db.db);
      await db.db
        .insertInto('admin_tokens')
        .values({ token_hash: await sha256(adminToken) })
        .execute();
    },
  });
  ({ mf, handle } = workerd);
});

afterAll(async () => {
  await workerd?.close();
  await channel?.close();
});

/** The admin API's typed client on the admin Worker (the operator's token), and the public one on the stay Worker. */
const admin = () => workerAdminClient(() => mf, 'admin', host, adminToken);
const stay = () => workerClient(() => mf, 'stay', { host });
const importsOf = (company: string) => ({ params: { path: { company_id: company, slug: villa } } });
const importPath = (id: string) => ({ params: { path: { company_id: companyId, slug: villa, import_id: id } } });
const addImport = (company: string, body: { url: string; channel: string }) =>
  admin().POST('/admin/v1/companies/{company_id}/listings/{slug}/calendar-imports', {
    ...importsOf(company),
    body: body as never,
  });
const sync = (id: string) =>
  admin().POST('/admin/v1/companies/{company_id}/listings/{slug}/calendar-imports/{import_id}/sync', importPath(id));
const importRow = (id: string) =>
  handle!.db.selectFrom('calendar_imports').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const importedRanges = async (id: string) =>
  (
    await handle!.db
      .selectFrom('calendar_blocks')
      .select(['reason', 'starts_on', 'ends_on'])
      .where('import_id', '=', id)
      .orderBy('starts_on')
      .execute()
  ).map((b) => [b.reason, b.starts_on, b.ends_on]);
const cron = async (worker: string) => (await (await mf!.getWorker(worker)).scheduled({ cron: '* * * * *' })).outcome;

describe('calendar imports in workerd', () => {
  const feed = '/workerd/airbnb.ics';
  let importId = '';

  it('the stay Worker’s Cron Trigger syncs a due import from a loopback feed; availability there takes its nights', async () => {
    channel.serve(feed, airbnbFeed([{ uid: 'w1', start: day(20), end: day(23) }]));
    const made = await addImport(companyId, { url: channel.url(feed), channel: 'airbnb' });
    expect(made.response.status, JSON.stringify(made.error)).toBe(201);
    importId = made.data?.import_id as string;
    expect(made.data).toMatchObject({ channel: 'airbnb', last_synced_at: null, event_count: 0 });
    expect(channel.requests(feed)).toHaveLength(0);

    // Due at once (next_sync_at is its creation's instant): the stay Worker's scheduled handler, as a Cron Trigger runs it.
    expect(await cron('stay')).toBe('ok');
    expect(channel.requests(feed)).toHaveLength(1);
    expect(await importedRanges(importId)).toEqual([['imported', day(20), day(23)]]);
    const row = await importRow(importId);
    expect(row).toMatchObject({ event_count: 1, last_error: null, failures: 0, etag: expect.any(String) });
    expect(row.last_synced_at).toBeInstanceOf(Date);
    expect(row.next_sync_at.getTime()).toBeGreaterThan(Date.now() + 5 * 60_000);

    // Not due again before its interval: another run fetches nothing.
    expect(await cron('stay')).toBe('ok');
    expect(channel.requests(feed)).toHaveLength(1);

    // The stay Worker's availability: the imported stay and the home's turnover night after it, bare.
    const open = await stay().GET('/api/v1/listings/{slug}/availability', {
      params: { path: { slug: villa }, query: { from: day(15), to: day(30) } },
    });
    expect(open.response.status, JSON.stringify(open.error)).toBe(200);
    expect(open.data?.blocked).toEqual([{ start: day(19), end: day(24) }]);
    const quote = await stay().GET('/api/v1/listings/{slug}/quote', {
      params: { path: { slug: villa }, query: { check_in: day(23), check_out: day(26), guests: 2 } },
    });
    expect([quote.response.status, quote.error?.code]).toEqual([400, 'unavailable']);
  });

  it('POST …/sync through the admin API syncs at once: a changed feed moves the block, then a 304 changes nothing', async () => {
    channel.serve(feed, airbnbFeed([{ uid: 'w1', start: day(25), end: day(28) }]));
    const moved = await sync(importId);
    expect(moved.response.status, JSON.stringify(moved.error)).toBe(200);
    expect(moved.data).toMatchObject({ import_id: importId, event_count: 1, last_error: null });
    expect(channel.requests(feed)).toHaveLength(2);
    expect(await importedRanges(importId)).toEqual([['imported', day(25), day(28)]]);

    const again = await sync(importId);
    expect(again.response.status, JSON.stringify(again.error)).toBe(200);
    expect(channel.requests(feed).at(-1)?.ifNoneMatch).toBe((await importRow(importId)).etag);
    expect(again.data?.last_changed_at).toBe(moved.data?.last_changed_at);
    expect(await importedRanges(importId)).toEqual([['imported', day(25), day(28)]]);

    const blocks = await admin().GET('/admin/v1/companies/{company_id}/listings/{slug}/blocks', importsOf(companyId));
    expect(blocks.data?.results.map((b) => [b.reason, b.channel, b.starts_on, b.ends_on])).toEqual([
      ['imported', 'airbnb', day(25), day(28)],
      ['turnover', 'airbnb', day(28), day(29)],
    ]);
  });

  it('refuses a loopback URL on a production workspace there (no DNS on Workers: the literal address is checked)', async () => {
    const refused = await addImport(productionId, { url: channel.url(feed), channel: 'airbnb' });
    expect(refused.response.status, JSON.stringify(refused.error)).toBe(400);
    expect(refused.error?.errors?.[0]).toMatchObject({ path: 'url', code: 'url_refused' });
  });

  it('the default Worker’s Cron Trigger (the deployed one-cron layout) syncs a due import too', async () => {
    channel.serve(feed, airbnbFeed([{ uid: 'w2', start: day(40), end: day(41) }]));
    await sql`update calendar_imports set next_sync_at = now() - interval '1 minute' where id = ${importId}::uuid`.execute(
      handle!.db,
    );
    const before = channel.requests(feed).length;
    expect(await cron('admin')).toBe('ok');
    expect(channel.requests(feed).length - before).toBe(1);
    expect(await importedRanges(importId)).toEqual([['imported', day(40), day(41)]]);
  });
});

/**
 * The portal feeds' memory (issue 25): a company's Property Finder and Bayut feeds of 1,000 then 10,000 listings,
 * fetched over loopback HTTP from the Node server's app on a fresh PostgreSQL database. The feed is streamed in
 * batches (functions/portals/feed-answer.ts), so the heap it needs must not grow with the number of listings:
 * measured as the peak of `heapUsed` (and RSS) above the level before the fetch, sampled at every chunk the client
 * reads, and as the peak of what is still reachable after a full GC forced every 8th chunk (another fetch of the
 * same feed: those GCs would slow the timed one, server and client sharing this process). Run with `npm run bench:feeds` (it passes --expose-gc); results in
 * bench/results/feeds-latest.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { sql } from 'kysely';
import { buildApp } from '../functions/app';
import { createCompany } from '../functions/admin/companies';
import { importCatalogue } from '../functions/catalogue/content';
import demoCatalogue from '../functions/catalogue/demo-catalogue.json' with { type: 'json' };
import { rotateFeedToken } from '../functions/portals/tokens';
import { openPostgres } from '../lib/db/postgres';
import { createNodePlatform } from '../lib/node/platform';
import { MemoryRateLimiter } from '../lib/ratelimit/memory';
import { newSecretKey } from '../lib/webhooks/secrets';
import { CatalogueImportInput } from '../schema/catalogue/admin';
import { CreateCompanyInput } from '../schema/platform/admin';
import { closeServer, freshDatabase } from './database';
import { exitWith } from './shared';

const SCRIPT = fileURLToPath(import.meta.url);
const sizes = [1_000, 10_000];
const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

type Measured = {
  portal: string;
  listings: number;
  properties: number;
  bodyMiB: number;
  seconds: number;
  peakHeapAboveStartMiB: number;
  peakLiveHeapAboveStartMiB: number;
  peakRssAboveStartMiB: number;
  sqlSeconds: number;
  statements: number;
};

/** The statements the app sent while a feed was fetched, with their time (Kysely's log on the app's pool). */
const sqlLog = { ms: 0, count: 0 };

const gc = (globalThis as { gc?: () => void }).gc;

/** Fetches a feed and reads it chunk by chunk (dropping each), sampling the heap and RSS at every chunk. */
async function measure(url: string, portal: string, listings: number, sampleLive: boolean): Promise<Measured> {
  gc?.();
  gc?.();
  const start = process.memoryUsage();
  let peakHeap = start.heapUsed;
  let peakLive = start.heapUsed;
  let peakRss = start.rss;
  let chunks = 0;
  sqlLog.ms = 0;
  sqlLog.count = 0;
  const began = performance.now();
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${portal}: ${res.status} ${await res.text()}`);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let bytes = 0;
  let properties = 0;
  let tail = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    const text = tail + decoder.decode(value, { stream: true });
    properties += text.split(portal === 'propertyfinder' ? '<property ' : '<Property>').length - 1;
    tail = text.slice(-12);
    const now = process.memoryUsage();
    peakHeap = Math.max(peakHeap, now.heapUsed);
    peakRss = Math.max(peakRss, now.rss);
    // Every 8th chunk, what is still reachable (after a full GC): the stream's working set, garbage aside.
    if (sampleLive && gc && ++chunks % 8 === 0) {
      gc();
      peakLive = Math.max(peakLive, process.memoryUsage().heapUsed);
    }
  }
  return {
    portal,
    listings,
    properties,
    bodyMiB: mib(bytes),
    seconds: Math.round((performance.now() - began) / 10) / 100,
    peakHeapAboveStartMiB: mib(peakHeap - start.heapUsed),
    peakLiveHeapAboveStartMiB: mib(peakLive - start.heapUsed),
    peakRssAboveStartMiB: mib(peakRss - start.rss),
    sqlSeconds: Math.round(sqlLog.ms / 10) / 100,
    statements: sqlLog.count,
  };
}

async function main(): Promise<number> {
  if (!gc) console.warn('run with node --expose-gc (npm run bench:feeds) for a heap measured after a full GC');
  let server: Server | undefined;
  let closeApp: (() => Promise<void>) | undefined;
  const database = await freshDatabase('pa_bench_feeds', async () => {
    if (server) await closeServer(server);
    await closeApp?.();
  });
  try {
    const handle = openPostgres(database.url, {
      log: (event) => {
        sqlLog.ms += event.queryDurationMillis;
        sqlLog.count += 1;
      },
    });
    closeApp = () => handle.close();
    const secretKey = newSecretKey();
    const platform = await createNodePlatform(
      { WEBHOOK_SECRET_KEY: secretKey, RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000' },
      { handle, limiter: new MemoryRateLimiter() },
    );
    const now = new Date();
    const input = {
      name: 'Feeds bench',
      hosts: ['127.0.0.1'],
      environment: 'development',
      currency: 'AED',
      time_zone: 'Asia/Dubai',
    };
    const company = await handle.db.transaction().execute(async (trx) => {
      const created = await createCompany(trx, CreateCompanyInput.parse({ ...input, settings: { market: 'dubai' } }));
      const doc = CatalogueImportInput.parse({ areas: demoCatalogue.areas, team: demoCatalogue.team });
      await importCatalogue(trx, created, doc, { render: null, now });
      return created;
    });
    const token = await rotateFeedToken(handle.db, company.id, secretKey);
    const app = buildApp(platform.provide, { maxBodyBytes: platform.config.MAX_BODY_BYTES });
    const port = await new Promise<number>((resolve) => {
      server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port)) as Server;
    });
    const measured: Measured[] = [];
    let made = 0;
    for (const size of sizes) {
      // Listings every portal takes: Trakheesi permit, price, 3 ready photos, a long description, the demo's agent.
      await sql`
        with places as (
          select (select id from areas where company_id = ${company.id} and slug_en = 'dubai') as city,
                 (select id from areas where company_id = ${company.id} and slug_en = 'dubai-marina') as area,
                 (select id from team_profiles where company_id = ${company.id} and name = 'Sara Haddad') as agent
        ), made as (
          insert into listings (company_id, slug_en, listing_type, status, title, description, price, price_period,
            property_type, bedrooms, bathrooms, size_sqm, city_id, area_id, published_at, updated_at, permit_number,
            permit_authority, permit_expires_on, agent_id)
          select ${company.id}, 'bench-' || i, 'sale', 'published',
                 jsonb_build_object('en', 'Apartment ' || i || ' & <view>', 'ar', 'شقة ' || i || ' 😀'),
                 jsonb_build_object('en', repeat('A bright apartment with a sea view & a balcony. ', 8), 'ar', repeat('شقة مشرقة ', 20)),
                 1000000 + i, 'total', 'apartment', 2, 2, 110.5, places.city, places.area, ${now}, ${now},
                 (7000000000 + i)::text, 'dld', '2099-12-31', places.agent
            from generate_series(${made + 1}::int, ${size}::int) as i, places
          returning id, slug_en
        )
        insert into listing_photos (listing_id, position, storage_key, alt)
        select made.id, p, made.slug_en || '/photo-' || p, '{"en": "A room"}'::jsonb from made, generate_series(0, 2) as p`.execute(
        handle.db,
      );
      made = size;
      await sql`analyze`.execute(handle.db); // as autovacuum would after a bulk load
      for (const portal of ['propertyfinder', 'bayut']) {
        const url = `http://127.0.0.1:${port}/api/v1/feeds/${token}/${portal}.xml`;
        await measure(url, portal, size, false); // warm: the first fetch of a size is not counted
        // Time without the GCs the live-heap sampling forces (they run in this same process), then memory with them.
        const timed = await measure(url, portal, size, false);
        const sampled = await measure(url, portal, size, true);
        if (timed.properties !== size) throw new Error(`${portal}: ${timed.properties} properties, expected ${size}`);
        const result = { ...timed, peakLiveHeapAboveStartMiB: sampled.peakLiveHeapAboveStartMiB };
        measured.push(result);
        console.log(JSON.stringify(result));
      }
    }
    const out = join(dirname(SCRIPT), 'results', 'feeds-latest.json');
    await mkdir(dirname(out), { recursive: true });
    const report = { at: new Date().toISOString(), node: process.version, gc: Boolean(gc), measured };
    await writeFile(out, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`wrote ${out}`);
    return 0;
  } finally {
    await database.cleanup();
  }
}

await exitWith(main);

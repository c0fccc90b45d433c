import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DatabaseHandle, runScriptSimpleProtocol } from '../lib/db/index';
import { openDatabase } from '../lib/node/database';
import { postgresPool } from '../lib/db/postgres';
import type { Database } from '../schema/db';
import { whatsAppSecret } from './inbound-writes';
import { formOrigin } from './scenarios';
import { baselineValues, type WriteBaseline } from './write-values';
import {
  type BenchEngine,
  type Counts,
  type FromServer,
  highWaterRss,
  memoryNow,
  minorFaults,
  POOL_MAX,
  type ToServer,
} from './shared';

/** The connection string with libpq's `options` (settings each session starts with), when any are given. */
function withSessionOptions(connectionString: string, options: string | undefined): string {
  if (!options) return connectionString;
  const url = new URL(connectionString);
  url.searchParams.set('options', options);
  return url.toString();
}

export async function runServer(): Promise<void> {
  const send = (message: FromServer) => process.send?.(message);
  // The parent going away (crash, kill) takes the server with it.
  process.on('disconnect', () => process.exit(1));
  try {
    const [
      { serve },
      { Hono },
      kysely,
      { buildApp },
      { createNodePlatform },
      { seedDemo },
      { createKey },
      inbound,
      jwe,
      adminTokens,
    ] = await Promise.all([
      import('@hono/node-server'),
      import('hono'),
      import('kysely'),
      import('../functions/app'),
      import('../lib/node/platform'),
      import('../functions/seed'),
      import('../lib/keys'),
      import('../functions/forms/inbound-channels'),
      import('../lib/crypto-jwe'),
      import('../lib/admin-tokens'),
    ]);
    const { CompiledQuery, Kysely, PostgresDialect, sql } = kysely;

    const engine = (process.env.BENCH_ENGINE ?? 'postgres') as BenchEngine;
    const counts: Counts = { queries: 0, transactionControl: 0, recent: [] };
    const count = (text: string) => {
      if (/^\s*(begin|commit|rollback|start transaction|savepoint|release savepoint)\b/i.test(text)) {
        counts.transactionControl++;
      } else {
        counts.queries++;
        if (counts.recent.length < 20) counts.recent.push(text.replace(/\s+/g, ' ').trim().slice(0, 160));
      }
    };
    let dataDir: string | undefined;
    let handle: DatabaseHandle;
    if (engine === 'pglite') {
      // `npm start`'s default, opened as it opens it (a new folder from the pre-initialised one): PGlite in this
      // process, in a data folder of its own. Statements are counted by Kysely's log hook (the dialect sends
      // BEGIN/COMMIT around it, so transaction control is not counted here).
      dataDir = await mkdtemp(join(tmpdir(), 'pa-bench-pglite-'));
      handle = await openDatabase(
        { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir },
        { log: (event) => count(event.query.sql) },
      );
    } else {
      const connectionString = process.env.BENCH_DATABASE_URL;
      if (!connectionString) throw new Error('BENCH_DATABASE_URL is not set');
      // The same pool openPostgres builds, with every client's query() counted on its way to the server.
      // BENCH_PG_OPTIONS (e.g. `-c plan_cache_mode=force_generic_plan`): settings of the server's pool's sessions, for
      // an A/B of a setting (the writes and their baselines both run on this pool).
      const pool = postgresPool(withSessionOptions(connectionString, process.env.BENCH_PG_OPTIONS), POOL_MAX);
      pool.on('connect', (client) => {
        const target = client as unknown as { query: (...args: unknown[]) => unknown };
        const original = target.query.bind(client);
        target.query = (...args: unknown[]) => {
          const first = args[0];
          count(typeof first === 'string' ? first : String((first as { text?: unknown } | undefined)?.text ?? ''));
          return original(...args);
        };
      });
      const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
      handle = {
        db,
        engine: 'postgres',
        // Where the company cache's listening connection goes (outside the counted pool).
        connectionString,
        runScript: runScriptSimpleProtocol,
        close: () => db.destroy(),
      };
    }

    // Stored details' keys, as `npm start` always has them (lib/node/platform.ts ensureDetailsKeys): the inbound
    // channel's secret is sealed with them.
    const details = jwe.newDetailsKey();
    const env = {
      ...process.env,
      DETAILS_KEYS: JSON.stringify({ [details.kid]: details.key }),
      DETAILS_KEY_ID: details.kid,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000000',
      RATE_LIMIT_PUBLISHABLE_KEY_PER_MINUTE: '100000000',
      RATE_LIMIT_SERVER_KEY_PER_MINUTE: '100000000',
      // The bench measures this process and PostgreSQL only: never a remote limiter.
      UPSTASH_REDIS_REST_URL: '',
      UPSTASH_REDIS_REST_TOKEN: '',
    };
    const platform = await createNodePlatform(env, { handle });
    const demo = await seedDemo(platform.handle.db, new Date());
    // The forms' key: the demo company is a development workspace, so a localhost page may send them.
    const { secret: publishableKey } = await platform.handle.db
      .transaction()
      .execute((trx) =>
        createKey(
          trx,
          demo.companyId,
          { kind: 'publishable', origins: [formOrigin], leadTypes: ['enquiry', 'booking'] },
          'admin',
        ),
      );
    // The server key of the bench's integrations: a CRM adding people and adding and moving deals, a helpdesk adding and
    // scheduling jobs.
    const { secret: serverKey } = await platform.handle.db.transaction().execute((trx) =>
      createKey(
        trx,
        demo.companyId,
        {
          kind: 'server',
          scopes: [
            'write:contacts',
            'read:pipelines',
            'write:pipelines',
            'read:maintenance',
            'write:maintenance',
            'read:leases',
            'write:leases',
          ],
        },
        'admin',
      ),
    );
    // The company's WhatsApp channel (Meta's webhooks), signed with the bench's app secret (bench/scenarios.ts).
    const whatsApp = await inbound.createChannel(
      platform.handle.db,
      demo.companyId,
      { kind: 'whatsapp', secret: whatsAppSecret },
      jwe.keyringOf(platform.config),
    );
    // The operator's token, for the admin API's calendar import syncs (bench/calendar-imports.ts).
    const adminToken = randomBytes(33).toString('base64url');
    await adminTokens.registerAdminToken(platform.handle.db, adminToken);
    // With the admin API, as `npm start` (bin/server.ts) serves it: the calendar import syncs are its routes.
    const app = buildApp(platform.provide, { admin: true, maxBodyBytes: platform.config.MAX_BODY_BYTES });
    // The same API with the rendered-answer cache off, under /uncached: what building a page costs.
    const uncachedPlatform = await createNodePlatform({ ...env, CATALOGUE_RESPONSE_CACHE_MB: '0' }, { handle });
    const uncached = buildApp(uncachedPlatform.provide, { maxBodyBytes: platform.config.MAX_BODY_BYTES });

    // The baselines' own table: what one row in one transaction costs, beside the forms.
    await sql`create table bench_rows (id bigint generated always as identity primary key, body text not null)`.execute(
      platform.handle.db,
    );
    // The comparisons: a route that does nothing (the ceiling of any route); the same Kysely instance and pool, no
    // middleware at all; one row inserted in one transaction; and a form's JSON read and answered.
    const writes = new Map<string, { baseline: WriteBaseline; turn: number }>();
    const bare = new Hono()
      .get('/bare/hello', (c) => c.text('Hello Hono!'))
      .post('/bare/insert', async (c) => {
        const body = await c.req.text();
        const row = await platform.handle.db
          .transaction()
          .execute((trx) => sql<{ id: string }>`insert into bench_rows (body) values (${body}) returning id`.execute(trx));
        return c.json({ id: row.rows[0]?.id ?? null }, 201);
      })
      .get('/bare/select1', async (c) => {
        const result = await sql<{ one: number }>`select 1 as one`.execute(platform.handle.db);
        return c.json({ one: result.rows[0]?.one ?? null });
      })
      // A write's own baseline (bench/write-baselines.ts): defined once by the driver from the rows one request of the
      // write stored, then each request writes those rows again (values made new) in one statement.
      .post('/bare/define', async (c) => {
        const baseline = await c.req.json<WriteBaseline>();
        writes.set(baseline.name, { baseline, turn: 0 });
        return c.json({ defined: baseline.name }, 201);
      })
      .post('/bare/write/:name', async (c) => {
        const write = writes.get(c.req.param('name'));
        if (!write) return c.json({ error: 'not defined' }, 404);
        const values = baselineValues(write.baseline, write.turn++);
        await platform.handle.db.executeQuery(CompiledQuery.raw(write.baseline.text, [values]));
        return c.json({ written: write.baseline.name }, 201);
      })
      .post('/bare/form', async (c) => {
        const body = await c.req.json<{ email?: unknown }>();
        return c.json({ reference: typeof body.email === 'string' ? 'L-0000000000' : null }, 201);
      });
    // The bare routes, the uncached API and the API, chosen by path; the API gets the request as `npm start` gives
    // it (node-server's request, env carrying the socket for the client address), with no router in front.
    const fetchOf = (request: Request, env: Record<string, unknown>) => {
      const url = request.url;
      const path = url.indexOf('/', url.indexOf('//') + 2);
      if (url.startsWith('/bare/', path)) return bare.fetch(request, env);
      if (url.startsWith('/uncached/', path)) {
        const inner = new URL(url);
        inner.pathname = inner.pathname.replace(/^\/uncached/, '');
        return uncached.fetch(new Request(inner, request), env);
      }
      return app.fetch(request, env);
    };

    // The largest rss seen since the last reset, sampled every 100 ms: the memory under the run's connections.
    let peakRss = memoryNow().rss;
    setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
    }, 100).unref();
    const tableRows = async (table: 'leads' | 'bookings') => {
      const result = await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(platform.handle.db);
      return Number(result.rows[0]?.n ?? 0);
    };

    // The uncached API on a port of its own, as `npm start` serves the API (no path rewritten, no request copied):
    // the bench's built pages are measured there; `/uncached/…` above stays for bench/growth.ts.
    const uncachedServer = serve({ fetch: (request, env) => uncached.fetch(request, env), port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => uncachedServer.once('listening', () => resolve()));
    const uncachedAddress = uncachedServer.address();
    const uncachedPort = typeof uncachedAddress === 'object' && uncachedAddress ? uncachedAddress.port : 0;
    const server = serve({ fetch: fetchOf, port: 0, hostname: '127.0.0.1' }, (info) => {
      send({
        type: 'ready',
        port: info.port,
        uncached_port: uncachedPort,
        engine,
        pool_max: engine === 'pglite' ? 1 : POOL_MAX,
        publishable_key: publishableKey,
        server_key: serverKey,
        whatsapp_path: `/api/v1/inbound/${whatsApp.token}/whatsapp`,
        admin_token: adminToken,
        company_id: demo.companyId,
        memory: memoryNow(),
      });
    });

    process.on('message', async (message: ToServer) => {
      const rows =
        message.type === 'rows' ? { leads: await tableRows('leads'), bookings: await tableRows('bookings') } : undefined;
      send({
        id: message.id,
        type: 'reply',
        counts: { ...counts, recent: [...counts.recent] },
        memory: memoryNow(),
        peak_rss: Math.max(peakRss, process.memoryUsage.rss()),
        lifetime_peak_rss: highWaterRss(),
        cpu: process.cpuUsage(),
        faults: minorFaults(),
        ...(rows ? { rows } : {}),
      });
      if (message.type === 'reset') {
        counts.queries = 0;
        counts.transactionControl = 0;
        counts.recent = [];
        peakRss = process.memoryUsage.rss();
      }
      if (message.type === 'stop') {
        server.close();
        uncachedServer.close();
        await platform.handle.close().catch(() => {});
        if (dataDir) await rm(dataDir, { recursive: true, force: true });
        process.disconnect();
        process.exit(0);
      }
    });
  } catch (error) {
    send({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.exit(1);
  }
}

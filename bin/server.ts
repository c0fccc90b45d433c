import type { PGlite } from '@electric-sql/pglite';
import { serve } from '@hono/node-server';
import { systemClock, systemMillis } from '../lib/clock';
import { DataFolderBusy, lockDataFolder } from '../lib/node/data-lock';
import { openDatabase } from '../lib/node/database';
import {
  adminCommandOf,
  baseUrlFor,
  dataDirOf,
  forgetServer,
  isProduction,
  portOf,
  recordServer,
} from '../lib/node/local-server';
import { exitOnBadSettings, exitWith, settingsOf } from '../lib/node/settings';
import { settingLine, SettingsError } from '../lib/config';

/**
 * `npm start`: the whole API as a Node server, on PGlite under DATA_DIR unless DATABASE_URL is set. Alone it is the
 * demo (a demo company on localhost); `NODE_ENV=production npm start` creates none (docs/node-server.md). It holds the
 * data folder's lock for its life: a second server on the same folder exits at once.
 *
 * The start is ordered for time to "listening": the settings are checked first (a bad one is one line and exit 1,
 * lib/node/settings.ts), the database is opened (PGlite reads and compiles its WebAssembly off the main thread), and
 * the start's own modules are evaluated meanwhile (imported here, not at the top); the route groups, the admin API,
 * the OpenAPI documents and the scheduler's jobs are not: each is imported and composed when a request (or the
 * scheduler's first run) first needs it (functions/lazy-app.ts, issue 39). The webhook dispatcher and the scheduler
 * begin once the server listens, so their first run (on PGlite, on this same thread) does not hold the start back.
 */
const env = process.env;
exitOnBadSettings(env, settingsOf.server);
// One server per data folder (lib/node/data-lock.ts), before anything opens it; a second start exits here, leaving the
// running server's files alone.
try {
  lockDataFolder(dataDirOf(env), 'server');
} catch (error) {
  if (!(error instanceof DataFolderBusy)) {
    exitWith([settingLine('DATA_DIR', `a folder this process can write (${(error as Error).message})`, dataDirOf(env))]);
  }
  console.error((error as Error).message);
  process.exit(1);
}
// NODE_ENV=production: no demo company is created; the start says how to create the first company.
const production = isProduction(env);
env.RELEASE ??= `node-${systemMillis().toString(36)}`;
const port = portOf(env);
const opening = openDatabase(env);
// Handled where it is awaited; this only keeps an early failure from being reported as unhandled first.
opening.catch(() => {});
// Only what the start itself needs: the route groups, the admin API and the scheduler's jobs are imported when a
// request or the scheduler's first run needs them (functions/lazy-app.ts).
const [
  { lazyApp },
  { afterResponsesSettled },
  { adminTokenOfDataDir, createNodePlatform, ensureAdminToken, ensureDetailsKeys, ensureWebhookSecretKey },
  { deliveredBy, startBackgroundWork },
  { seedDemo, countCompanies, firstCompanyHelp },
  { adoptCopyMark, backupRoutes, pgliteDirOf },
  { outboundPause, pausedLine },
  { provideEventTriggers },
] = await Promise.all([
  import('../functions/lazy-app'),
  import('../lib/request-lifecycle'),
  import('../lib/node/platform'),
  import('../lib/node/background'),
  import('../functions/seed'),
  import('../lib/node/backup'),
  import('../lib/outbound'),
  import('../lib/event-triggers'),
]);
// The files of the data folder are read while the database opens, so what follows the opening is database work.
const [adminToken] = await Promise.all([
  adminTokenOfDataDir(env),
  ensureWebhookSecretKey(env).then(({ key }) => {
    env.WEBHOOK_SECRET_KEY = key;
  }),
  ensureDetailsKeys(env),
]);
const platform = await createNodePlatform(env, { handle: opening }).catch((error: unknown) => {
  // The keys read from the data folder are settings too: a damaged file is one line, as a bad variable is.
  if (error instanceof SettingsError) exitWith(error);
  throw error;
});
const admin = await ensureAdminToken(platform.handle, env, adminToken);
// A folder made from a backup (PGLITE_TEMPLATE) carries a mark until migrated: its outbound work starts paused.
if (!env.DATABASE_URL) await adoptCopyMark(platform.handle.db, pgliteDirOf(dataDirOf(env)), platform.services().now());
const pause = await outboundPause(platform.handle.db);
const demo = production
  ? { seeded: false, companies: await countCompanies(platform.handle.db) }
  : { ...(await seedDemo(platform.handle.db, systemClock(), platform.config.MEDIA_BASE_URL)), companies: 1 };
const pglite = 'pglite' in platform.handle ? (platform.handle.pglite as PGlite) : undefined;
const app = lazyApp(platform.provide, {
  maxBodyBytes: platform.config.MAX_BODY_BYTES,
  admin: {
    // PGlite's backup while the server runs (`npm run admin -- backup`, lib/node/backup.ts).
    extra: pglite ? () => backupRoutes(pglite) : undefined,
    // `events trigger`'s fixtures (issue 38): the Node server only; the Workers leave them out of their bundles.
    prepare: () => import('../functions/triggers').then(({ eventTriggers }) => provideEventTriggers(eventTriggers)),
  },
});
let background: ReturnType<typeof startBackgroundWork> | undefined;
let stopping = false;

const hostname = env.HOST ?? '0.0.0.0';
const adminCli = adminCommandOf(env);
const server = serve({ fetch: app.fetch, port, hostname }, async (address) => {
  const recorded = baseUrlFor(hostname, address.port);
  // Where the admin command line finds this server (bin/admin.ts): removed again on shutdown.
  const record = { base_url: recorded, pid: process.pid, started_at: systemClock().toISOString() };
  await recordServer(dataDirOf(env), record);
  const data = demo.seeded ? 'demo company created' : demo.companies === 0 ? 'no company yet' : 'existing data reused';
  console.log(`Property API on ${platform.handle.engine}${production ? ' (production)' : ''} — ${data}`);
  if (production) {
    // Only what answers here: the catalogue answers on each company's own hosts (a request to this address names
    // none), the health checks and the reference on any host.
    console.log(`  Health:    ${recorded}/health/ready   (liveness: ${recorded}/health)`);
    console.log(`  Docs:      ${recorded}/api/v1/docs   (OpenAPI: ${recorded}/api/v1/openapi.json)`);
    console.log(`  API:       /api/v1 on each company's hosts (companies create --host …), behind your TLS proxy`);
  } else {
    const base = `http://localhost:${address.port}`;
    console.log(`  Base URL:  ${base}/api/v1   (try ${base}/api/v1/listings)`);
    console.log(`  Docs:      ${base}/api/v1/docs   (OpenAPI: ${base}/api/v1/openapi.json)`);
  }
  console.log(`  Webhooks:  ${deliveredBy(platform.webhooks)}; scheduler every ${platform.config.SCHEDULER_INTERVAL_SECONDS} s`);
  if (pause) console.log(`  Outbound:  ${pausedLine(pause, `${adminCli} outbound resume`)}`);
  console.log(`  Admin:     token in ${admin.source}; e.g. ${adminCli} companies list`);
  if (production && demo.companies === 0) console.log(firstCompanyHelp(adminCli));
  // The webhook dispatcher (or QStash hand-off) and the scheduler, until shutdown.
  // Their first runs wait a little: on PGlite (one session, this thread) the first requests would queue behind them.
  if (!stopping) {
    // On PGlite, which has no autovacuum, the planner's statistics too (lib/node/statistics.ts).
    const jobs = () =>
      Promise.all([import('../functions/jobs'), import('../lib/node/statistics')]).then(([{ scheduledJobs }, { nodeJobs }]) =>
        nodeJobs(scheduledJobs, platform.handle),
      );
    background = startBackgroundWork(platform.services(), platform.onHandOff, jobs, {
      firstRunAfterMs: 2_000,
      paused: pause !== undefined,
    });
  }
});
// A port taken, or an address this machine does not have, is a setting the system refused: one line, as a bad one is.
server.on('error', (error: NodeJS.ErrnoException) => {
  const why = error.code ?? error.message;
  if (error.code === 'EADDRINUSE' || error.code === 'EACCES') {
    exitWith([settingLine('PORT', `a port free to listen on at ${hostname} (${why})`, String(port))]);
  }
  exitWith([settingLine('HOST', `an address of this machine to listen on (${why})`, hostname)]);
});

async function shutdown() {
  stopping = true;
  server.close();
  await forgetServer(dataDirOf(env));
  await afterResponsesSettled();
  await background?.stop();
  await platform.handle.close();
  process.exit(0);
}
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);

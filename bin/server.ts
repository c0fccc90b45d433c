import { serve } from '@hono/node-server';
import { buildApp } from '../functions/app';
import { afterResponsesSettled } from '../lib/app';
import { scheduledJobs } from '../functions/jobs';
import { startBackgroundWork } from '../lib/node/background';
import { baseUrlFor, dataDirOf, forgetServer, portOf, recordServer } from '../lib/node/local-server';
import { createNodePlatform, ensureAdminToken, ensureDetailsKeys, ensureWebhookSecretKey } from '../lib/node/platform';
import { seedDemo } from '../functions/seed';

/** `npm start`: the whole API as a Node server, on PGlite under DATA_DIR unless DATABASE_URL is set. */
const env = process.env;
env.RELEASE ??= `node-${Date.now().toString(36)}`;
const port = portOf(env);
env.WEBHOOK_SECRET_KEY = (await ensureWebhookSecretKey(env)).key;
await ensureDetailsKeys(env);
const platform = await createNodePlatform(env);
const admin = await ensureAdminToken(platform.handle, env);
const demo = await seedDemo(platform.handle.db, new Date(), platform.config.MEDIA_BASE_URL);
const app = buildApp(platform.provide, { admin: true, maxBodyBytes: platform.config.MAX_BODY_BYTES });
// The webhook dispatcher (or QStash hand-off) and the scheduler, until shutdown.
const background = startBackgroundWork(platform.services(), platform.onHandOff, scheduledJobs);

const hostname = env.HOST ?? '0.0.0.0';
const server = serve({ fetch: app.fetch, port, hostname }, async (address) => {
  const base = `http://localhost:${address.port}`;
  // Where the admin command line finds this server (bin/admin.ts): removed again on shutdown.
  const record = { base_url: baseUrlFor(hostname, address.port), pid: process.pid, started_at: new Date().toISOString() };
  await recordServer(dataDirOf(env), record);
  console.log(`Property API on ${platform.handle.engine} — ${demo.seeded ? 'demo company created' : 'existing data reused'}`);
  console.log(`  Base URL:  ${base}/api/v1   (try ${base}/api/v1/listings)`);
  console.log(`  Docs:      ${base}/api/v1/docs   (OpenAPI: ${base}/api/v1/openapi.json)`);
  console.log(`  Webhooks:  ${background.dispatcher}; scheduler every ${platform.config.SCHEDULER_INTERVAL_SECONDS} s`);
  console.log(`  Admin:     token in ${admin.source}; e.g. npm run --silent admin -- companies list`);
});

async function shutdown() {
  server.close();
  await forgetServer(dataDirOf(env));
  await afterResponsesSettled();
  await background.stop();
  await platform.handle.close();
  process.exit(0);
}
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);

/**
 * Webhooks in the BUILT default Worker (workerd, Neon driver → local PostgreSQL): the Cron Trigger's
 * scheduled handler publishes a committed delivery to QStash (a loopback recorder), and QStash's callback
 * POST /internal/v1/deliveries/{id}, signed as QStash signs it, delivers to a loopback subscriber.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { Log, LogLevel, Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { compatibilityDate, compatibilityFlags } from '../../bin/wrangler-config';
import { createCompany } from '../../functions/admin/companies';
import { createSubscription } from '../../lib/webhooks/subscriptions';
import { loadConfig } from '../../lib/config';
import type { DatabaseHandle } from '../../lib/db/index';
import { openPostgres } from '../../lib/db/postgres';
import { recordEvent } from '../../lib/events';
import { createWebhookRuntime } from '../../lib/webhooks/runtime';
import { newSecretKey } from '../../lib/webhooks/secrets';
import { CreateCompanyInput } from '../../schema/platform/admin';
import { type Receiver, startReceiver, verify } from '../webhooks/support';
import { startWsTcpProxy, type WsTcpProxy } from '../support/ws-tcp-proxy';
import { onServer, SERVER } from './support';

const bundle = fileURLToPath(new URL('../../dist/worker/worker.js', import.meta.url));
const databaseName = `pa_workerd_wh_${randomBytes(4).toString('hex')}`;
const base = 'https://api.workerd.test';
const keys = { current: 'sig_workerd_current_0123456789', next: 'sig_workerd_next_0123456789' };
const secretKey = newSecretKey();

let handle: DatabaseHandle | undefined;
let proxy: WsTcpProxy | undefined;
let mf: Miniflare | undefined;
let qstash: Receiver;
let subscriber: Receiver;
let secret: string;
let deliveryId: string;
let eventId: string;

beforeAll(async () => {
  qstash = await startReceiver((_, i) => ({
    status: 201,
    headers: { 'content-type': 'application/json' },
    body: `{"messageId":"msg_${i}"}`,
  }));
  subscriber = await startReceiver();
  // A copy of the run's migrated database (test/workerd/global-setup.ts).
  await onServer((client) => client.query(`create database ${databaseName} template ${inject('workerdTemplate')}`));
  handle = openPostgres(`${SERVER}/${databaseName}`, { max: 2 });
  const runtime = createWebhookRuntime(loadConfig({ WEBHOOK_SECRET_KEY: secretKey }));
  await handle.db.transaction().execute(async (trx) => {
    const company = await createCompany(
      trx,
      CreateCompanyInput.parse({
        name: 'Hooks',
        hosts: [`h${randomBytes(3).toString('hex')}.test`],
        environment: 'development',
        currency: 'AED',
        time_zone: 'Asia/Dubai',
      }),
    );
    ({ secret } = await createSubscription(
      trx,
      company,
      { url: `${subscriber.url}/in`, event_types: ['*'], description: '', enabled: true },
      runtime,
    ));
    eventId = await recordEvent(trx, {
      companyId: company.id,
      type: 'lead.created',
      causedBy: 'website',
      data: { reference: 'L-9' },
    });
  });
  deliveryId = (
    await handle.db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', eventId).executeTakeFirstOrThrow()
  ).id;

  proxy = await startWsTcpProxy();
  mf = new Miniflare({
    cf: false,
    log: new Log(LogLevel.WARN),
    modules: [{ type: 'ESModule', path: bundle }],
    compatibilityDate,
    compatibilityFlags,
    bindings: {
      DATABASE_URL: `${SERVER}/${databaseName}`,
      NEON_WS_PROXY: `127.0.0.1:${proxy.port}`,
      WEBHOOK_SECRET_KEY: secretKey,
      QSTASH_TOKEN: 'workerd-token',
      QSTASH_URL: qstash.url,
      QSTASH_CURRENT_SIGNING_KEY: keys.current,
      QSTASH_NEXT_SIGNING_KEY: keys.next,
      INTERNAL_BASE_URL: base,
    },
  });
  await mf.ready;
});

afterAll(async () => {
  await mf?.dispose();
  await proxy?.close();
  await handle?.close();
  await Promise.all([qstash?.close(), subscriber?.close()]);
  await onServer((client) => client.query(`drop database if exists ${databaseName} with (force)`));
});

async function callback(id: string, key: string) {
  const body = JSON.stringify({ delivery_id: id });
  const now = Math.floor(Date.now() / 1000);
  const signature = await new SignJWT({ body: createHash('sha256').update(body).digest('base64url') })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer('Upstash')
    .setSubject(`${base}/internal/v1/deliveries/${id}`)
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + 300)
    .sign(new TextEncoder().encode(key));
  const worker = await mf!.getWorker();
  // raw: the internal delivery route is no operation of the documents, signed by QStash over its exact body
  return worker.fetch(`${base}/internal/v1/deliveries/${id}`, {
    method: 'POST',
    body,
    headers: { 'Upstash-Signature': signature },
  });
}

describe('webhooks in the built Worker', () => {
  it('publishes the committed delivery to QStash from the Cron Trigger', async () => {
    const worker = await mf!.getWorker();
    await worker.scheduled({ cron: '* * * * *' });
    const published = qstash.requests.filter((r) => r.path.startsWith('/v2/publish/'));
    expect(published.map((r) => r.path)).toEqual([`/v2/publish/${base}/internal/v1/deliveries/${deliveryId}`]);
    expect(published[0]!.headers['upstash-deduplication-id']).toBe(deliveryId);
  });

  it('refuses a forged QStash signature, and delivers on a genuine one', async () => {
    const forged = await callback(deliveryId, 'sig_forged_0123456789');
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { code: string }).code).toBe('signature_invalid');
    expect(subscriber.requests).toHaveLength(0);
    const genuine = await callback(deliveryId, keys.next);
    expect(genuine.status).toBe(200);
    expect(await genuine.json()).toEqual({ delivery_id: deliveryId, status: 'succeeded' });
    expect(verify(secret, subscriber.requests[0]!)).toMatchObject({ id: eventId, type: 'lead.created', caused_by: 'website' });
    const missing = randomUUID();
    expect(await (await callback(missing, keys.current)).json()).toEqual({ delivery_id: missing, status: 'missing' });
  });
});

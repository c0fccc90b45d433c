import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import newman from 'newman';
import createClient from 'openapi-fetch';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCollection, collectionPlan } from '../../bin/collection';
import type { paths as AdminPaths } from '../../clients/admin/schema';
import { leadTypes, scopes } from '../../schema/common/scopes';
import { bareEnv, baseUrlOf, childNodeFlags } from '../support/server-process';
import { type StripeStandIn, startStripeStandIn } from '../support/stripe-standin';

/**
 * The Postman collection as shipped (collections/, built by bin/collection.ts) run with newman against `npm start`
 * (bin/start.mjs) with its demo company, on an empty data folder (PGlite) or, on the PostgreSQL pass, on a database of
 * its own on that server: set up through the admin API as the README's commands do (a server key with every scope, a
 * publishable key for the collection's `origin`, the three inbound channels, the feeds' token), then every request in
 * order. Green means each request answered the one status its step expects (a 2xx) and no assertion failed.
 */
const databaseUrl = process.env.DATABASE_URL;
const origin = 'http://localhost:3000';
const appSecret = randomBytes(16).toString('hex');
let dataDir: string;
let server: ReturnType<typeof spawn> | undefined;
let output = '';
let database: { name: string; admin: pg.Client } | undefined;
let stripe: StripeStandIn | undefined;

/**
 * The typed admin client of the server over real HTTP, with the token it wrote into its data folder (what `npm run
 * admin` does).
 */
async function adminApi() {
  const token = (await readFile(join(dataDir, 'admin-token'), 'utf8')).trim();
  return createClient<AdminPaths>({ baseUrl: await baseUrlOf(dataDir), headers: { Authorization: `Bearer ${token}` } });
}

/** The answer's data, or a throw naming the refusal. */
function answered<T>(res: { data?: T; error?: unknown; response: Response }): T {
  if (res.data === undefined) throw new Error(`${res.response.url}: ${res.response.status} ${JSON.stringify(res.error)}`);
  return res.data;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'property-api-collection-'));
  stripe = await startStripeStandIn();
  const env: Record<string, string> = { STRIPE_API_BASE: stripe.url };
  if (databaseUrl) {
    // A database of its own: the demo company answers on localhost, which the shared test database's files may use.
    const admin = new pg.Client(databaseUrl);
    await admin.connect();
    database = { name: `pa_collection_${randomBytes(5).toString('hex')}`, admin };
    await admin.query(`create database ${database.name}`);
    const url = new URL(databaseUrl);
    url.pathname = `/${database.name}`;
    env.DATABASE_URL = url.toString();
  }
  server = spawn(process.execPath, [...childNodeFlags, 'bin/start.mjs'], {
    env: bareEnv({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    server?.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Admin:')) resolve();
    });
    server?.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server?.on('exit', (code) => reject(new Error(`the server exited with ${code}:\n${output}`)));
  });
}, 150_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server?.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  if (database) {
    await database.admin.query(`drop database if exists ${database.name} with (force)`);
    await database.admin.end();
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  await stripe?.close();
});

type Execution = {
  item: { id: string; name: string };
  request: { method: string; url: { toString(): string } };
  response?: { code: number; text(): string };
  assertions?: Array<{ assertion: string; error?: { message: string } }>;
};

/** The token in an address the admin API answers with (`…/inbound/<token>/whatsapp`, `…/feeds/<token>/bayut.xml`). */
const tokenIn = (url: string) => new URL(url).pathname.split('/').at(-2) as string;

describe('the Postman collection against the demo company', () => {
  it('runs every request in order with newman, each answering the status its step expects', async () => {
    const baseUrl = await baseUrlOf(dataDir);
    const admin = await adminApi();
    const [company] = answered(await admin.GET('/admin/v1/companies')).results;
    const of = { params: { path: { company_id: company?.id as string } } };
    const keys = '/admin/v1/companies/{company_id}/keys';
    const channels = '/admin/v1/companies/{company_id}/inbound-channels';
    const serverKey = answered(await admin.POST(keys, { ...of, body: { kind: 'server', scopes: [...scopes] } as never }));
    const publishable = answered(
      await admin.POST(keys, { ...of, body: { kind: 'publishable', origins: [origin], lead_types: [...leadTypes] } as never }),
    );
    const whatsapp = answered(await admin.POST(channels, { ...of, body: { kind: 'whatsapp', secret: appSecret } as never }));
    const propertyFinder = answered(await admin.POST(channels, { ...of, body: { kind: 'propertyfinder' } as never }));
    const signed = answered(await admin.POST(channels, { ...of, body: { kind: 'signed', source: 'bayut' } as never }));
    const feeds = answered(await admin.GET('/admin/v1/companies/{company_id}/portal-feeds', of));
    // The company's Accredited Service Provider, whose answer the collection signs.
    const einvoiceSecret = 'whsec_Y29sbGVjdGlvbi1ydW4tYXNwLXNlY3JldC0xMjM0';
    answered(
      await admin.PUT('/admin/v1/companies/{company_id}/einvoicing', {
        ...of,
        body: { url: 'https://asp.example/einvoices', secret: einvoiceSecret } as never,
      }),
    );
    // The company's pricing tool, whose daily rates the collection pushes signed.
    const pricingSecret = 'whsec_Y29sbGVjdGlvbi1ydW4tcHJpY2luZy1zZWNyZXQtMTI=';
    answered(
      await admin.PUT('/admin/v1/companies/{company_id}/pricing-tool', {
        ...of,
        body: { tool: 'pricelabs', secret: pricingSecret } as never,
      }),
    );
    const paymentSecret = 'whsec_collection_run';
    const paymentAccount = answered(
      await admin.POST('/admin/v1/companies/{company_id}/payment-accounts', {
        ...of,
        body: {
          provider: 'stripe',
          currency: company?.currency as string,
          api_key: 'sk_test_collection_run',
          webhook_secret: paymentSecret,
        } as never,
      }),
    );

    // The file a user imports, and what the routes of this server generate.
    const collection = JSON.parse(await readFile('collections/property-api.postman_collection.json', 'utf8'));
    // raw: the OpenAPI document is not an operation it declares (newman then sends every request of the collection)
    const doc = await (await fetch(`${baseUrl}/api/v1/openapi.json`)).json();
    expect(collection).toEqual(buildCollection(doc));
    const steps = collectionPlan(doc).flatMap(({ steps }) => steps);

    const summary = await new Promise<{ run: { executions: Execution[]; failures: unknown[] } }>((resolve, reject) =>
      newman.run(
        {
          collection,
          envVar: [
            { key: 'baseUrl', value: baseUrl },
            { key: 'serverKey', value: serverKey.secret },
            { key: 'publishableKey', value: publishable.secret },
            { key: 'origin', value: origin },
            { key: 'whatsappToken', value: tokenIn(whatsapp.url) },
            { key: 'whatsappAppSecret', value: appSecret },
            { key: 'whatsappVerifyToken', value: whatsapp.verify_token as string },
            { key: 'propertyFinderToken', value: tokenIn(propertyFinder.url) },
            { key: 'propertyFinderSecret', value: propertyFinder.secret as string },
            { key: 'signedToken', value: tokenIn(signed.url) },
            { key: 'signedSecret', value: signed.secret as string },
            { key: 'einvoiceSecret', value: einvoiceSecret },
            { key: 'pricingSecret', value: pricingSecret },
            { key: 'feedToken', value: tokenIn(feeds.results[0]?.url as string) },
            { key: 'paymentAccountId', value: paymentAccount.account_id },
            { key: 'paymentWebhookSecret', value: paymentSecret },
          ],
          reporters: [],
          // Generous: a request waits behind the scheduler and the other test files on a busy machine.
          timeoutRequest: 120_000,
        },
        (error, result) => (error ? reject(error) : resolve(result as never)),
      ),
    );

    // newman lists a request again for each pm.sendRequest of its scripts: one execution per item, the last.
    const byItem = new Map<string, Execution>();
    for (const execution of summary.run.executions) byItem.set(execution.item.id, execution);
    const executions = [...byItem.values()];
    const line = (e: Execution) => `${e.request.method} ${new URL(e.request.url.toString()).pathname} → ${e.response?.code}`;
    expect(executions.map((e) => e.item.name)).toEqual(steps.map((step) => step.name));
    // Each request's status, in order, is the one its step expects.
    expect(executions.map((e, i) => `${steps[i]?.name}: ${e.response?.code}`)).toEqual(
      steps.map((step) => `${step.name}: ${step.step.expect}`),
    );
    const failed = executions.flatMap((e) =>
      (e.assertions ?? [])
        .filter((a) => a.error)
        .map((a) => `${line(e)}: ${a.assertion}: ${a.error?.message} ${e.response?.text().slice(0, 300)}`),
    );
    expect(failed).toEqual([]);
    expect(summary.run.failures).toEqual([]);
    // Every operation of the document ran, each at least once, and succeeded.
    const operations = Object.values(doc.paths as Record<string, Record<string, unknown>>).reduce(
      (n, item) => n + ['get', 'post', 'put', 'patch', 'delete'].filter((m) => m in item).length,
      0,
    );
    expect(new Set(steps.map((step) => step.step.operation)).size).toBe(operations);
    expect(executions.every((e) => (e.response?.code ?? 500) < 300)).toBe(true);
    if (database) {
      // The PostgreSQL pass ran on PostgreSQL: the run's records are in the database made for it.
      const url = new URL(databaseUrl as string);
      url.pathname = `/${database.name}`;
      const client = new pg.Client(url.toString());
      await client.connect();
      const { rows } = await client.query('select count(*)::int as n from inbound_messages');
      await client.end();
      expect(rows[0].n).toBe(3);
    }
  }, 300_000);
});

/**
 * Reads over Neon's SQL over HTTP, everything else through the WebSocket (lib/db/neon.ts, lib/worker.ts), in the BUILT
 * stay, crm, catalogue and events Workers in workerd: a visitor's read and a server key's read (with the audit row it
 * writes in its own statement where it answers personal data) open no WebSocket at all; a write opens one and sends
 * every statement through it. Every other workerd test runs its routes through the same two stand-ins
 * (test/support/neon-http.ts, test/support/ws-tcp-proxy.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sql } from 'kysely';
import { createKey } from '../../lib/keys';
import { bundleOf, demoCompany, startWorkerd, type Workerd, workerClient } from './support';

const suffix = randomBytes(4).toString('hex');
const host = `h${suffix}.workerd.test`;
/** A demo holiday home (three nights at least). */
const home = 'palm-5br-villa-private-beach-holiday';
let workerd: Workerd | undefined;
let mf: Miniflare | undefined;
let key = '';

beforeAll(async () => {
  workerd = await startWorkerd({
    template: inject('workerdTemplate'),
    databaseName: `pa_workerd_http_${suffix}`,
    applicationName: 'pa_workerd_http',
    workers: [
      { name: 'stay', bundle: bundleOf('stay') },
      { name: 'crm', bundle: bundleOf('crm') },
      { name: 'catalogue', bundle: bundleOf('catalogue') },
      { name: 'events', bundle: bundleOf('events') },
    ],
    seed: async (db) => {
      await db.db.transaction().execute(async (trx) => {
        const company = await demoCompany(trx, 'Workerd HTTP', host);
        const scopes = ['read:contacts', 'write:contacts', 'read:events'] as const;
        key = (await createKey(trx, company.id, { kind: 'server', scopes: [...scopes] }, 'admin')).secret;
      });
    },
  });
  ({ mf } = workerd);
});

afterAll(async () => {
  await workerd?.close();
});

const stay = () => workerClient(() => mf, 'stay', { host });
const crm = () => workerClient(() => mf, 'crm', { host, serverKey: key });
/** A stay of the coming year (the Workers read the real clock). */
const day = (offset: number) =>
  new Date(Date.UTC(new Date().getUTCFullYear() + 1, 4, 1) + offset * 86_400_000).toISOString().slice(0, 10);
const quote = (slug: string) =>
  stay().GET('/api/v1/listings/{slug}/quote', {
    params: { path: { slug }, query: { check_in: day(0), check_out: day(4), guests: 2 } },
  });

/** What the stand-ins counted while `work` ran: WebSocket connections and statements over HTTP. */
async function counted(work: () => Promise<void>) {
  const { proxy, http } = workerd!;
  const before = { connections: proxy.connections, statements: http.statements };
  await work();
  return { connections: proxy.connections - before.connections, statements: http.statements - before.statements };
}

describe('the Workers on Neon', () => {
  it('send a visitor’s read over HTTP and open no WebSocket', async () => {
    const seen = await counted(async () => {
      const answer = await quote(home);
      expect(answer.response.status).toBe(200);
      expect(answer.data).toMatchObject({ currency: 'AED' });
      expect(answer.data?.nights).toHaveLength(4);
    });
    expect(seen.connections).toBe(0);
    expect(seen.statements).toBeGreaterThanOrEqual(1);
  });

  it('send every statement of a word search over HTTP, a misspelt word’s too', async () => {
    // "marena" is no word of the demo: its page reads the words it stands for, then their first tier (three statements).
    const search = (q: string) =>
      workerClient(() => mf, 'catalogue', { host }).GET('/api/v1/listings', { params: { query: { q, page_size: 5 } } });
    // The first read of these listings renders their cards and stores them (a write). "marina" shows the cards that
    // "marena" will (the word it stands for), and keeps nothing for "marena" (functions/catalogue/listings.ts
    // `measuredKept`), whose read then sends all three statements.
    await search('marina');
    const seen = await counted(async () => {
      const page = await search('marena');
      expect(page.response.status).toBe(200);
      expect(page.data?.results.length).toBeGreaterThan(0);
    });
    expect(seen.connections).toBe(0);
    expect(seen.statements).toBeGreaterThanOrEqual(3);
  });

  it('answer a refused read as before, over HTTP: an unknown listing is a 404 problem', async () => {
    const seen = await counted(async () => {
      const missing = await quote('no-such-home');
      expect(missing.response.status).toBe(404);
      expect(missing.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    });
    expect(seen.connections).toBe(0);
  });

  it('send every statement of a write through the WebSocket, and a key’s audited read over HTTP with its audit row', async () => {
    const email = `http.${suffix}@example.com`;
    let reference = '';
    const wrote = await counted(async () => {
      const added = await crm().POST('/api/v1/contacts', { body: { name: 'Over the WebSocket', email } });
      expect(added.response.status).toBe(201);
      reference = added.data!.reference;
    });
    expect(wrote).toEqual({ connections: 1, statements: 0 });
    const audited = () =>
      sql<{ n: number }>`select count(*)::int as n from audit_log
        where action = 'personal_data.read' and details->'references' ? ${reference}`.execute(workerd!.handle.db);
    const before = (await audited()).rows[0]?.n;
    const read = await counted(async () => {
      const found = await crm().GET('/api/v1/contacts/{reference}', { params: { path: { reference } } });
      expect(found.response.status).toBe(200);
      expect(found.data).toMatchObject({ reference, name: 'Over the WebSocket', email });
    });
    // A person's record is audited when answered, its audit row written in the read's own statement: one statement,
    // its own transaction over HTTP as over the WebSocket (lib/db/neon.ts `isRead`).
    expect(read.connections).toBe(0);
    expect(read.statements).toBeGreaterThanOrEqual(1);
    expect((await audited()).rows[0]?.n).toBe((before ?? 0) + 1);
  });

  it('send a key’s reads of the events over HTTP, the contact’s event among them', async () => {
    const events = () => workerClient(() => mf, 'events', { host, serverKey: key });
    await events().GET('/api/v1/events', { params: { query: { page_size: 1 } } }); // the key's first use is recorded
    const seen = await counted(async () => {
      const listed = await events().GET('/api/v1/events', { params: { query: { page_size: 100 } } });
      expect(listed.response.status).toBe(200);
      expect(listed.data?.results.map((e) => e.type)).toContain('contact.created');
      const feed = await events().GET('/api/v1/events/feed', { params: { query: {} } });
      expect(feed.response.status).toBe(200);
    });
    expect(seen.connections).toBe(0);
    expect(seen.statements).toBeGreaterThanOrEqual(2);
  });
});

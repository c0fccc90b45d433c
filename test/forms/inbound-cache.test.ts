import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../lib/crypto';
import { keyringOf, sealSecret } from '../../lib/crypto-jwe';
import { openTestDatabase, statementLog } from '../support/harness';
import { demoCompany } from '../support/world';
import {
  counts,
  deliver,
  type InboundWorld,
  inboundChannels,
  inboundWorld,
  metaAppSecret,
  metaSignature,
  standardHeaders,
  waId,
  wamid,
  whatsAppText,
} from './inbound-support';

/**
 * Inbound channels kept in memory on Node (lib/company-cache.ts, migration 0068): a delivery to a channel found before
 * sends no statement for it, and every change to a channel (a rotated token, a removal) is seen by the next delivery:
 * at once when made through this process (test/forms/inbound-channels.test.ts), once notified when made by another
 * one (here, SQL straight on the database). Counting a failed verification announces nothing. A channel is kept under
 * its company: its token at another company's host is unknown there.
 */

let statements: string[] | undefined;
const log = statementLog(() => statements);
const world = {} as InboundWorld;
beforeAll(async () => {
  Object.assign(world, await inboundWorld({}, {}, await openTestDatabase({ log })));
});
afterAll(() => world.api?.close());

const cache = () => world.api.platform.companyCache;
const channelStatements = () => (statements ?? []).filter((s) => s.includes('inbound_channels'));

/** A WhatsApp message from a new sender to `path`, signed with Meta's app secret, and the statements it sent. */
async function sendWhatsApp(path: string, host = world.company.host) {
  const body = whatsAppText(waId(), wamid(), 'Is it still available?', new Date());
  statements = [];
  const res = await world.api.request(path, {
    host,
    method: 'POST',
    body,
    headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': metaSignature(body) },
  });
  const sent = channelStatements();
  statements = undefined;
  return { status: res.status, text: res.text, sent };
}

/** A change made by another process (SQL straight on the database), awaited until this process was told of it. */
async function byAnotherProcess(change: () => Promise<unknown>) {
  const noticed = cache().changed(world.company.id);
  await change();
  await noticed;
}

/** The WhatsApp channel's app secret, replaced by another process. */
async function replaceSecret(secret: string) {
  const sealed = await sealSecret(keyringOf(world.api.platform.config), secret, world.channels.whatsapp.id);
  await byAnotherProcess(() =>
    world.api.db
      .updateTable('inbound_channels')
      .set({ secret_jwe: sealed })
      .where('id', '=', world.channels.whatsapp.id)
      .execute(),
  );
}

/** The WhatsApp channel, delivered to once since every change was announced: kept in memory. */
async function keptWhatsApp() {
  await cache().listening();
  await cache().settled();
  const first = await sendWhatsApp(world.channels.whatsapp.path);
  expect(first.status, first.text).toBe(200);
  return world.channels.whatsapp.path;
}

describe('inbound channels in memory', () => {
  it('sends no statement for a channel found before', async () => {
    await cache().listening();
    await cache().settled();
    // Found by its token's hash once (the first delivery here, or an earlier test's)...
    await sendWhatsApp(world.channels.whatsapp.path);
    // ... then taken from memory.
    const second = await sendWhatsApp(world.channels.whatsapp.path);
    expect(second.status, second.text).toBe(200);
    expect(second.sent).toEqual([]);
  });

  it('keeps a channel under its company: its token at another company’s host, or for another kind, is unknown', async () => {
    const path = await keptWhatsApp();
    const other = await demoCompany(world.api);
    const before = await counts(world);
    const elsewhere = await sendWhatsApp(path, other.host);
    expect(elsewhere.status, elsewhere.text).toBe(404);
    const otherKind = await sendWhatsApp(path.replace(/\/whatsapp$/, '/signed'));
    expect(otherKind.status, otherKind.text).toBe(404);
    expect(await counts(world)).toEqual(before);
  });

  it('refuses a kept channel’s token rotated through this process at the very next delivery', async () => {
    const old = await keptWhatsApp();
    const rotated = await inboundChannels(world.api, world.company.id).rotateToken(world.channels.whatsapp.id);
    expect(rotated.status, rotated.text).toBe(200);
    const refused = await sendWhatsApp(old);
    expect(refused.status, refused.text).toBe(404);
    world.channels.whatsapp.path = new URL(rotated.json.url).pathname;
    expect((await sendWhatsApp(world.channels.whatsapp.path)).status).toBe(200);
  });

  it('refuses a token rotated by another process once the database announced it, and takes the new one', async () => {
    const old = await keptWhatsApp();
    const token = 'AnotherProcessRotatedThisToken0123456789abc';
    const hash = await sha256(token);
    await byAnotherProcess(() =>
      world.api.db
        .updateTable('inbound_channels')
        .set({ token_hash: hash, token_hint: token.slice(0, 6), token_rotated_at: new Date() })
        .where('id', '=', world.channels.whatsapp.id)
        .execute(),
    );
    const before = await counts(world);
    const refused = await sendWhatsApp(old);
    expect(refused.status, refused.text).toBe(404);
    expect(await counts(world)).toEqual(before);
    world.channels.whatsapp.path = `/api/v1/inbound/${token}/whatsapp`;
    const taken = await sendWhatsApp(world.channels.whatsapp.path);
    expect(taken.status, taken.text).toBe(200);
  });

  it('verifies with an app secret replaced by another process once the database announced it', async () => {
    const path = await keptWhatsApp();
    const replaced = 'replaced-by-another-process-0123456789';
    await replaceSecret(replaced);
    const body = whatsAppText(waId(), wamid(), 'Signed with the old secret', new Date());
    const old = await deliver(world, path, body, { 'X-Hub-Signature-256': metaSignature(body) });
    expect(old.status, old.text).toBe(403);
    const taken = await deliver(world, path, body, { 'X-Hub-Signature-256': metaSignature(body, replaced) });
    expect(taken.status, taken.text).toBe(200);
    // Put back, and announced before the next test keeps the channel again.
    await replaceSecret(metaAppSecret);
  });

  it('refuses a channel removed by another process once the database announced it', async () => {
    const made = await inboundChannels(world.api, world.company.id).create({ kind: 'signed', source: 'dubizzle' });
    expect(made.status, made.text).toBe(201);
    const path = new URL(made.json.url).pathname;
    const lead = (id: string) => {
      const body = JSON.stringify({ type: 'lead.created', data: { email: `${id}@example.com` } });
      return deliver(world, path, body, standardHeaders(made.json.secret, id, new Date(), body));
    };
    await cache().settled();
    expect((await lead('kept-1')).status).toBe(200);
    await byAnotherProcess(() => world.api.db.deleteFrom('inbound_channels').where('id', '=', made.json.id).execute());
    const refused = await lead('kept-2');
    expect(refused.status, refused.text).toBe(404);
  });

  it('keeps the channel through a failed verification: its count is not announced', async () => {
    const path = await keptWhatsApp();
    const body = whatsAppText(waId(), wamid(), 'Forged', new Date());
    const forged = await deliver(world, path, body, { 'X-Hub-Signature-256': metaSignature(body, 'not-the-app-secret') });
    expect(forged.status).toBe(403);
    const counted = await world.api.db
      .selectFrom('inbound_channels')
      .select('failures')
      .where('id', '=', world.channels.whatsapp.id)
      .executeTakeFirstOrThrow();
    expect(counted.failures).toBeGreaterThan(0);
    // Every notification the failure's commit could have sent is received by the end of this round trip.
    cache().afterWrite();
    await cache().settled();
    const next = await sendWhatsApp(path);
    expect(next.status, next.text).toBe(200);
    expect(next.sent).toEqual([]);
  });
});

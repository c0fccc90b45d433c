import { describe, expect, it } from 'vitest';
import { adminCli, cliTimeout } from '../support/admin-cli';
import { auditRows as auditLog } from './support';
import {
  counts,
  deliver,
  inboundChannels,
  useInboundWorld,
  metaAppSecret,
  metaSignature,
  standardHeaders,
  waId,
  wamid,
  whatsAppText,
} from './inbound-support';

/**
 * The inbound channels as the operator manages them (admin API and `npm run admin -- inbound …`): secret addresses
 * shown once and rotated, secrets kept encrypted, repeated verification failures in the audit log (rated), and the
 * size limit.
 */
const world = useInboundWorld();

const channels = () => inboundChannels(world.api, world.company.id);
const auditRows = (action: string) => auditLog(world.api, world.company.id, action);

describe('the admin API', () => {
  it('lists each channel with its token’s first characters only, never a secret', async () => {
    const res = await channels().list();
    expect(res.status, res.text).toBe(200);
    expect(res.json.results.map((c: { kind: string }) => c.kind)).toEqual(['whatsapp', 'propertyfinder', 'signed']);
    for (const channel of res.json.results) {
      expect(channel.url).toMatch(/\/api\/v1\/inbound\/[A-Za-z0-9]{6}…\/(whatsapp|propertyfinder|signed)$/);
      expect(Object.keys(channel)).not.toContain('secret');
    }
    expect(res.text).not.toContain(world.channels.signed.secret);
    expect(res.text).not.toContain(world.channels.whatsapp.path.split('/')[4]);
  });

  it('keeps only the token’s hash and the secrets sealed', async () => {
    const row = await world.api.db
      .selectFrom('inbound_channels')
      .selectAll()
      .where('id', '=', world.channels.signed.id)
      .executeTakeFirstOrThrow();
    const token = world.channels.signed.path.split('/')[4] as string;
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row.secret_jwe).not.toContain(world.channels.signed.secret.slice(6, 20));
    expect(row.secret_jwe.split('.')).toHaveLength(5);
  });

  it.each([
    ['a WhatsApp channel without the app secret', { kind: 'whatsapp' }, 400, 'secret'],
    ['a Property Finder secret over 32 characters', { kind: 'propertyfinder', secret: 'x'.repeat(33) }, 400, 'secret'],
    ['a signed secret that is not whsec_', { kind: 'signed', source: 'zillow', secret: 'plain-secret-text' }, 400, 'secret'],
    ['a signed channel without a source', { kind: 'signed' }, 400, 'source'],
    ['a reserved source', { kind: 'signed', source: 'website' }, 400, 'source'],
    ['a second channel of a source', { kind: 'signed', source: 'bayut' }, 409, undefined],
  ])('refuses %s', async (_, body, status, field) => {
    const res = await channels().create(body);
    expect(res.status, res.text).toBe(status);
    if (field) expect(res.json.errors?.[0]?.path).toBe(field);
  });
});

describe('rotation and secrets', () => {
  it('refuses the old address at once after a rotation (404, nothing stored), and takes the new one', async () => {
    const before = await channels().list();
    const old = world.channels.whatsapp.path;
    const rotated = await channels().rotateToken(world.channels.whatsapp.id);
    expect(rotated.status, rotated.text).toBe(200);
    const fresh = new URL(rotated.json.url).pathname;
    expect(fresh).not.toBe(old);
    const body = whatsAppText(waId(), wamid(), 'After the rotation', new Date());
    const stored = await counts(world);
    const refused = await deliver(world, old, body, { 'X-Hub-Signature-256': metaSignature(body) });
    expect(refused.status).toBe(404);
    expect(await counts(world)).toEqual(stored);
    const taken = await deliver(world, fresh, body, { 'X-Hub-Signature-256': metaSignature(body) });
    expect(taken.status, taken.text).toBe(200);
    world.channels.whatsapp.path = fresh;
    expect(await auditRows('inbound_channel.token_rotated')).toMatchObject([
      { subject: world.channels.whatsapp.id, details: { source: 'whatsapp' } },
    ]);
    expect((await auditRows('inbound_channel.created')).map((r) => r.details)).toEqual(
      expect.arrayContaining([
        { kind: 'whatsapp', source: 'whatsapp' },
        { kind: 'propertyfinder', source: 'propertyfinder' },
        { kind: 'signed', source: 'bayut' },
      ]),
    );
    expect(before.json.results[0].token_rotated_at).toBeNull();
  });

  it('verifies with a replaced app secret from the change on', async () => {
    const changed = await channels().patch(world.channels.whatsapp.id, { secret: 'the-reset-app-secret-0123456789' });
    expect(changed.status, changed.text).toBe(200);
    const body = whatsAppText(waId(), wamid(), 'New secret', new Date());
    const path = world.channels.whatsapp.path;
    expect((await deliver(world, path, body, { 'X-Hub-Signature-256': metaSignature(body) })).status).toBe(403);
    const ok = await deliver(world, path, body, {
      'X-Hub-Signature-256': metaSignature(body, 'the-reset-app-secret-0123456789'),
    });
    expect(ok.status, ok.text).toBe(200);
    await channels().patch(world.channels.whatsapp.id, { secret: metaAppSecret });
  });
});

describe('repeated verification failures', () => {
  it('write one audit row a window from the third failure on, whatever is sent, and are cut at 60 a window', async () => {
    const { path } = world.channels.propertyfinder;
    const forged = () => deliver(world, path, '{"id":"x"}', { 'X-Signature': 'ab'.repeat(32) });
    const now = new Date();
    world.api.clock.set(now);
    for (let i = 0; i < 2; i++) expect((await forged()).status).toBe(403);
    expect(await auditRows('inbound.verification_failed')).toEqual([]);
    for (let i = 0; i < 8; i++) expect((await forged()).status).toBe(403);
    const rows = await auditRows('inbound.verification_failed');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      subject: world.channels.propertyfinder.id,
      details: {
        kind: 'propertyfinder',
        source: 'propertyfinder',
        failures: 3,
        last_reason: 'The signature does not match the body.',
      },
    });
    const listed = (await channels().list()).json.results.find((c: { id: string }) => c.id === world.channels.propertyfinder.id);
    expect(listed.failures).toMatchObject({ count: 10, since: now.toISOString(), last_audited_at: now.toISOString() });
    // A window later the count starts again, and its third failure writes the next row.
    world.api.clock.set(new Date(now.getTime() + 16 * 60_000));
    for (let i = 0; i < 3; i++) await forged();
    expect(await auditRows('inbound.verification_failed')).toHaveLength(2);
    // A flood: past 60 failures in the limiter's window, answered 429 without reaching the database.
    const statuses = [];
    for (let i = 0; i < 55; i++) statuses.push((await forged()).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(await auditRows('inbound.verification_failed')).toHaveLength(2);
    world.api.clock.set(null);
  });
});

describe('the size limit', () => {
  it('refuses a body over the limit with 413 before reading it, storing nothing', async () => {
    const before = await counts(world);
    const big = whatsAppText(waId(), wamid(), 'x'.repeat(70 * 1024), new Date());
    const res = await deliver(world, world.channels.whatsapp.path, big, { 'X-Hub-Signature-256': metaSignature(big) });
    expect(res.status).toBe(413);
    expect(res.json.code).toBe('payload_too_large');
    expect(await counts(world)).toEqual(before);
  });
});

describe('the command line', cliTimeout, () => {
  const cli = adminCli(() => world.api);

  it('adds a signed channel (address and secret printed once), lists it, rotates and deletes it', async () => {
    const made = await cli('inbound', 'add', world.company.id, '--kind', 'signed', '--source', 'dubizzle');
    expect(made).toMatchObject({ kind: 'signed', source: 'dubizzle', secret: expect.stringMatching(/^whsec_/) });
    const body = JSON.stringify({ type: 'lead.created', data: { email: 'cli.lead@example.com' } });
    const path = new URL(made.url).pathname;
    const sent = await deliver(world, path, body, standardHeaders(made.secret, 'cli-1', new Date(), body));
    expect(sent.status, sent.text).toBe(200);
    const listed = await cli('inbound', 'list', world.company.id);
    expect(listed.results.map((c: { source: string }) => c.source)).toContain('dubizzle');
    const rotated = await cli('inbound', 'rotate', world.company.id, made.id);
    expect(new URL(rotated.url).pathname).not.toBe(path);
    await cli('inbound', 'delete', world.company.id, made.id);
    expect((await deliver(world, new URL(rotated.url).pathname, body, {})).status).toBe(404);
  });
});

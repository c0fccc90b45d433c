import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSecretKey, newSigningSecret, secretBox } from '../../lib/webhooks/secrets';
import { createTestApi, type TestApi } from '../support/harness';
import { dispatch, fixtures, record, verify, webhooksAdmin } from './support';

/**
 * How rows were written before signing secrets moved to JWE (lib/webhooks/secrets.ts): raw Web Crypto AES-256-GCM,
 * a 12-byte IV then ciphertext and tag, the subscription id as additional data. Kept here as the fixture of a
 * stored row, so the test shows such rows still open.
 */
async function legacyEncrypt(base64Key: string, secret: string, subscriptionId: string): Promise<Uint8Array> {
  const raw = Uint8Array.from(atob(base64Key), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt']);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const encoder = new TextEncoder();
  const params = { name: 'AES-GCM', iv, additionalData: encoder.encode(subscriptionId) };
  const sealed = new Uint8Array(await crypto.subtle.encrypt(params, key, encoder.encode(secret)));
  return new Uint8Array([...iv, ...sealed]);
}

describe('the secret box', () => {
  const key = newSecretKey();
  const box = secretBox(key);
  const subscription = crypto.randomUUID();

  it('writes compact JWE (dir, A256GCM) bound to the subscription, and reads it back', async () => {
    const secret = newSigningSecret();
    const stored = await box.encrypt(secret, subscription);
    const text = new TextDecoder().decode(stored);
    expect(text.split('.')).toHaveLength(5);
    const header = JSON.parse(atob(text.split('.')[0]!.replaceAll('-', '+').replaceAll('_', '/')));
    expect(header).toMatchObject({ alg: 'dir', enc: 'A256GCM', subscription });
    expect(text).not.toContain(secret.slice(6, 20));
    expect(await box.decrypt(stored, subscription)).toBe(secret);
  });

  it('refuses a secret moved to another subscription, a changed value and another key', async () => {
    const stored = await box.encrypt(newSigningSecret(), subscription);
    await expect(box.decrypt(stored, crypto.randomUUID())).rejects.toThrow(/another subscription/);
    // The first character of the ciphertext part: all six of its bits are data (the last character of a part
    // may carry unused bits, so changing it may change nothing).
    const parts = new TextDecoder().decode(stored).split('.');
    const ciphertext = parts[3]!;
    parts[3] = (ciphertext[0] === 'A' ? 'B' : 'A') + ciphertext.slice(1);
    const changed = parts.join('.');
    await expect(box.decrypt(new TextEncoder().encode(changed), subscription)).rejects.toThrow();
    await expect(secretBox(newSecretKey()).decrypt(stored, subscription)).rejects.toThrow();
  });

  it('still reads rows written the old way (raw AES-GCM), bound to their subscription', async () => {
    const secret = newSigningSecret();
    const old = await legacyEncrypt(key, secret, subscription);
    expect(await box.decrypt(old, subscription)).toBe(secret);
    await expect(box.decrypt(old, crypto.randomUUID())).rejects.toThrow();
  });

  it('names the setting when no key is configured', async () => {
    await expect(secretBox(undefined).encrypt('whsec_x', subscription)).rejects.toThrow(/WEBHOOK_SECRET_KEY/);
  });
});

describe('a subscription whose secret was stored the old way', () => {
  let api: TestApi;
  const { setup, close } = fixtures(() => api);
  beforeAll(async () => {
    api = await createTestApi({ ownDatabase: true });
  });
  afterAll(async () => {
    await close();
    await api.close();
  });

  it('is still signed with that secret; a rotation writes the new secret as JWE', async () => {
    const { company, hook, sub } = await setup();
    const ciphertext = await legacyEncrypt(api.platform.config.WEBHOOK_SECRET_KEY!, sub.secret, sub.id);
    await api.db.updateTable('webhook_secrets').set({ ciphertext }).where('subscription_id', '=', sub.id).execute();
    await record(api, company.id, 'lead.created');
    await dispatch(api);
    expect(verify(sub.secret, hook.requests[0]!).type).toBe('lead.created');

    const rotated = await webhooksAdmin(api, company.id).rotateSecret(sub.id);
    expect(rotated.response.status).toBe(200);
    const rows = await api.db
      .selectFrom('webhook_secrets')
      .select(['ciphertext', 'expires_at'])
      .where('subscription_id', '=', sub.id)
      .execute();
    const fresh = rows.find((r) => r.expires_at === null)!;
    expect(new TextDecoder().decode(fresh.ciphertext).split('.')).toHaveLength(5);
    await record(api, company.id, 'lead.created');
    await dispatch(api);
    const during = hook.requests[1]!;
    expect(verify(sub.secret, during).type).toBe('lead.created');
    expect(verify(rotated.data?.secret as string, during).type).toBe('lead.created');
  });
});

import { createHash, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { createTestApi } from '../support/harness';
import { startReceiver, subscribe } from './support';
import { createCompany } from '../support/world';

/**
 * A test API configured for QStash: a loopback server stands in for QStash and records what @upstash/qstash
 * publishes (QStash's REST shape), and a loopback subscriber receives the deliveries.
 */
export const base = 'https://api.example.test';
export const keys = { current: 'sig_current_0123456789abcdef', next: 'sig_next_0123456789abcdef' };

/** QStash's answer to a publish: 201 with the message id. */
export const accepted = (_: unknown, i: number) => ({
  status: 201,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ messageId: `msg_${i}` }),
});

export async function qstashTestApi() {
  const qstash = await startReceiver(accepted);
  const subscriber = await startReceiver();
  const api = await createTestApi({
    ownDatabase: true,
    env: {
      QSTASH_TOKEN: 'qstash-test-token',
      QSTASH_URL: qstash.url,
      QSTASH_CURRENT_SIGNING_KEY: keys.current,
      QSTASH_NEXT_SIGNING_KEY: keys.next,
      INTERNAL_BASE_URL: base,
    },
  });
  const company = await createCompany(api, { environment: 'development' });
  const subscription = await subscribe(api, company.id, { url: `${subscriber.url}/hook` });

  /** What QStash signs: HS256 JWT, issuer Upstash, subject the destination URL, body = base64url(SHA-256(body)). */
  async function qstashSignature(url: string, body: string, o: { key?: string; expiresIn?: number; bodyHash?: string } = {}) {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ body: o.bodyHash ?? createHash('sha256').update(body).digest('base64url') })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer('Upstash')
      .setSubject(url)
      .setIssuedAt(now - 60)
      .setNotBefore(now - 60)
      .setExpirationTime(now + (o.expiresIn ?? 300))
      .setJti(`jwt_${randomUUID()}`)
      .sign(new TextEncoder().encode(o.key ?? keys.current));
  }

  /** QStash calling our delivery route for one delivery, with its signature (or the one given). */
  async function callback(deliveryId: string, o: Parameters<typeof qstashSignature>[2] & { signature?: string | null } = {}) {
    const body = JSON.stringify({ delivery_id: deliveryId });
    const path = `/internal/v1/deliveries/${deliveryId}`;
    const signature = o.signature === undefined ? await qstashSignature(`${base}${path}`, body, o) : o.signature;
    // raw: QStash's call of an internal route outside both API documents, with its own signature header
    return api.request(path, {
      method: 'POST',
      host: 'api.example.test',
      body,
      headers: signature === null ? {} : { 'Upstash-Signature': signature },
    });
  }

  return {
    api,
    qstash,
    subscriber,
    company,
    subscription,
    publishes: () => qstash.requests.filter((r) => r.path.startsWith('/v2/publish/')),
    qstashSignature,
    callback,
    close: async () => {
      await Promise.all([qstash.close(), subscriber.close()]);
      await api.close();
    },
  };
}

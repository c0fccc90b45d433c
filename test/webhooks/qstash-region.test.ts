import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config';
import { createTestApi, type TestApi } from '../support/harness';
import { accepted } from './qstash-support';
import { type Receiver, startReceiver, subscribe, webhooksAdmin } from './support';
import { createCompany } from '../support/world';

/**
 * QStash's region is QSTASH_URL (https://qstash.upstash.io, EU, by default; https://qstash-us-east-1.upstash.io for
 * the US region, whose account has its own token and signing keys). Publishing goes to the configured URL only: two
 * loopback servers stand for the regions, and @upstash/qstash's own fallback (process.env.QSTASH_URL) names the other.
 */
let configured: Receiver;
let other: Receiver;
let api: TestApi;
const before = process.env.QSTASH_URL;

beforeAll(async () => {
  configured = await startReceiver(accepted);
  other = await startReceiver(accepted);
  process.env.QSTASH_URL = other.url;
  api = await createTestApi({
    ownDatabase: true,
    env: {
      QSTASH_TOKEN: 'us-region-token',
      QSTASH_URL: configured.url,
      QSTASH_CURRENT_SIGNING_KEY: 'sig_us_current',
      QSTASH_NEXT_SIGNING_KEY: 'sig_us_next',
      INTERNAL_BASE_URL: 'https://api.example.test',
    },
  });
});

afterAll(async () => {
  if (before === undefined) delete process.env.QSTASH_URL;
  else process.env.QSTASH_URL = before;
  await Promise.all([configured?.close(), other?.close()]);
  await api?.close();
});

describe('QStash region', () => {
  it('defaults to the EU URL and takes the US one', () => {
    expect(loadConfig({}).QSTASH_URL).toBe('https://qstash.upstash.io');
    expect(loadConfig({ QSTASH_URL: 'https://qstash-us-east-1.upstash.io' }).QSTASH_URL).toBe(
      'https://qstash-us-east-1.upstash.io',
    );
  });

  it('publishes to QSTASH_URL with that region’s token, never to another URL', async () => {
    const company = await createCompany(api, { environment: 'development' });
    const subscriber = await startReceiver();
    try {
      const subscription = await subscribe(api, company.id, { url: `${subscriber.url}/hook` });
      const ping = await webhooksAdmin(api, company.id).ping(subscription.id);
      expect(ping.response.status).toBe(202);
      const published = configured.requests.filter((r) => r.path.startsWith('/v2/publish/'));
      expect(published).toHaveLength(1);
      expect(published[0]!.headers.authorization).toBe('Bearer us-region-token');
      expect(published[0]!.path).toBe(`/v2/publish/https://api.example.test/internal/v1/deliveries/${ping.data?.id}`);
      expect(other.requests).toEqual([]);
    } finally {
      await subscriber.close();
    }
  });
});

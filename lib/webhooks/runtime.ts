import { systemClock } from '../clock';
import type { Config } from '../config';
import { localTransport } from './local';
import { qstashTransport } from './qstash';
import { verifyQStashRequest } from './receiver';
import { secretBox } from './secrets';
import { type HostResolver, type OutboundFetch, unpinnedFetch } from '../outbound/guard';
import { type WebhookRuntime, userAgent } from './types';

export function createWebhookRuntime(
  config: Config,
  options: { resolveHost?: HostResolver; onHandOff?: () => void; fetch?: OutboundFetch; now?: () => Date } = {},
): WebhookRuntime {
  return {
    transport: config.QSTASH_TOKEN ? qstashTransport(config) : localTransport(options.onHandOff),
    verifyCallback: verifyQStashRequest,
    secrets: secretBox(config.WEBHOOK_SECRET_KEY),
    resolveHost: options.resolveHost,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    userAgent,
    // Workers: Cloudflare's fetch (names are not resolved here); Node passes its pinning fetch.
    fetch: options.fetch ?? unpinnedFetch,
    now: options.now ?? systemClock,
  };
}

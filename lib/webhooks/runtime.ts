import { systemClock } from '../clock';
import type { Config } from '../config';
import { localTransport } from './local';
import { qstashTransport } from './qstash';
import { verifyQStashRequest } from './receiver';
import { secretBox } from './secrets';
import type { HostResolver } from './urls';
import { type WebhookRuntime, userAgent } from './types';

export function createWebhookRuntime(
  config: Config,
  options: { resolveHost?: HostResolver; onHandOff?: () => void; fetch?: typeof fetch; now?: () => Date } = {},
): WebhookRuntime {
  return {
    transport: config.QSTASH_TOKEN ? qstashTransport(config) : localTransport(options.onHandOff),
    verifyCallback: verifyQStashRequest,
    secrets: secretBox(config.WEBHOOK_SECRET_KEY),
    resolveHost: options.resolveHost,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    userAgent,
    // Called through a wrapper: Workers refuse a fetch detached from the global object.
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    now: options.now ?? systemClock,
  };
}

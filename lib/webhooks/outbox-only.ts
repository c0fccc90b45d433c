import { systemClock } from '../clock';
import type { Config } from '../config';
import { unpinnedFetch } from '../outbound/guard';
import { secretBox } from './secrets';
import { type WebhookRuntime, userAgent } from './types';

/**
 * The webhook runtime of a Worker whose routes never write (the catalogue's): no transport, so neither QStash's
 * client nor the delivery code is bundled. Should a write ever commit deliveries there, they wait in the outbox
 * for the sweep of the Worker that handles deliveries (the default Worker's Cron Trigger), as after a crash.
 */
export function outboxOnlyRuntime(config: Config): WebhookRuntime {
  return {
    transport: { kind: 'outbox', handOff: async () => {}, sweep: async () => ({}) },
    secrets: secretBox(config.WEBHOOK_SECRET_KEY),
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    userAgent,
    fetch: unpinnedFetch,
    now: systemClock,
  };
}

import { groupWorker } from '../../lib/worker';
import { createWebhookRuntime } from '../../lib/webhooks/runtime';
import { leases } from './index';

/** Leases as their own Worker (wrangler env "leases"). */
export default groupWorker(leases, createWebhookRuntime);

import { groupWorker } from '../../lib/worker';
import { createWebhookRuntime } from '../../lib/webhooks/runtime';
import { maintenance } from './index';

/** Maintenance as its own Worker (wrangler env "maintenance"). */
export default groupWorker(maintenance, createWebhookRuntime);

import { groupWorker } from '../../lib/worker';
import { createWebhookRuntime } from '../../lib/webhooks/runtime';
import { portalsGroup } from './index';

/** The portals as their own Worker (wrangler env "portals"): feeds, the portal check, the permits' scheduled work. */
export default groupWorker(portalsGroup, createWebhookRuntime);

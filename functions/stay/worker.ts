import { groupWorker } from '../../lib/worker';
import { createWebhookRuntime } from '../../lib/webhooks/runtime';
import { stay } from './index';

/** Holiday-home bookings and the stay page as their own Worker (wrangler env "stay"), with booking expiry. */
export default groupWorker(stay, createWebhookRuntime);

import { groupWorker } from '../../lib/worker';
import { createWebhookRuntime } from '../../lib/webhooks/runtime';
import { paymentsGroup } from './index';

/** The payments as their own Worker (wrangler env "payments"): the providers' webhook receiver. */
export default groupWorker(paymentsGroup, createWebhookRuntime);

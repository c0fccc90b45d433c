import { groupWorker } from '../../lib/worker';
import { createWebhookRuntime } from '../../lib/webhooks/runtime';
import { webhooks } from './index';

/** Webhook endpoints as their own Worker (wrangler env "webhooks"). */
export default groupWorker(webhooks, createWebhookRuntime);

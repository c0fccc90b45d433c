import { groupWorker } from '../../lib/worker';
import { createWebhookRuntime } from '../../lib/webhooks/runtime';
import { forms } from './index';

/** The browser forms as their own Worker (wrangler env "forms"): a lead's events are handed to the transport. */
export default groupWorker(forms, createWebhookRuntime);

import { groupWorker } from '../../lib/worker';
import { createWebhookRuntime } from '../../lib/webhooks/runtime';
import { statements } from './index';

/** Owner statements and the journal as their own Worker (wrangler env "statements"). */
export default groupWorker(statements, createWebhookRuntime);

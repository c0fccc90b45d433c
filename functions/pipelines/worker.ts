import { groupWorker } from '../../lib/worker';
import { createWebhookRuntime } from '../../lib/webhooks/runtime';
import { pipelines } from './index';

/** Pipelines, deals and viewings as their own Worker (wrangler env "pipelines"). */
export default groupWorker(pipelines, createWebhookRuntime);

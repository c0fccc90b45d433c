import { groupWorker } from '../../lib/worker';
import { createWebhookRuntime } from '../../lib/webhooks/runtime';
import { pipelinesGroup } from './index';

/** Pipelines, deals and viewings as their own Worker (wrangler env "pipelines"). */
export default groupWorker(pipelinesGroup, createWebhookRuntime);

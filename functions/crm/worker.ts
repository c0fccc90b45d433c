import { groupWorker } from '../../lib/worker';
import { createWebhookRuntime } from '../../lib/webhooks/runtime';
import { crm } from './index';

/** CRM sync as its own Worker (wrangler env "crm"), with the CRM's scheduled jobs on its Cron Trigger. */
export default groupWorker(crm, createWebhookRuntime);

import { groupWorker } from '../../lib/worker';
import { outboxOnlyRuntime } from '../../lib/webhooks/outbox-only';
import { eventsGroup } from './index';

/** Events and the audit export as their own Worker (wrangler env "events"): reads only, so no webhook transport. */
export default groupWorker(eventsGroup, outboxOnlyRuntime);

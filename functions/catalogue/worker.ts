import { groupWorker } from '../../lib/worker';
import { outboxOnlyRuntime } from '../../lib/webhooks/outbox-only';
import { catalogue } from './index';

/** The catalogue as its own Worker (wrangler env "catalogue"): reads only, so no webhook transport; no jobs. */
export default groupWorker(catalogue, outboxOnlyRuntime);

import { defineGroup } from '../../lib/compose';
import { endpoints } from './endpoints.routes';

/**
 * Webhook endpoints of an integration (server keys only, `read:webhooks` / `write:webhooks`): subscribe, change,
 * rotate the signing secret, read the deliveries and recover failed ones. The same subscriptions the operator
 * manages in the admin API (lib/webhooks/subscriptions.ts); delivery itself is the platform's (lib/webhooks/).
 */
export const webhooks = defineGroup({ name: 'webhooks', routes: [endpoints] });

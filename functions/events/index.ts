import { defineGroup } from '../../lib/compose';
import { auditRoutes } from './audit.routes';
import { eventRoutes } from './events.routes';

/**
 * Events and the audit log through the API (server keys only, issue 38): the company's events (a list, and the feed
 * `events listen` follows in order of commit) and the audit log's export. The admin API has the same reads
 * (functions/admin/events.routes.ts, audit.routes.ts) over the same lib/event-feed.ts and lib/audit-export.ts.
 */
export const eventsGroup = defineGroup({
  name: 'events',
  routes: [eventRoutes, auditRoutes],
});

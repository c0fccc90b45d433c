import { audit } from './audit.routes';
import { companies } from './companies.routes';
import { events } from './events.routes';
import { keys } from './keys.routes';
import { outbound } from './outbound.routes';
import { taxRates } from './tax-rates.routes';
import { webhookSubscriptions } from './webhooks.routes';

/**
 * The platform operator's own routes (/admin/v1): companies, keys, the audit log, webhook subscriptions, events
 * and deliveries, the database's outbound work (paused on a copy), and the dated tax rates. Each group's admin routes are its own
 * (functions/<group>/admin.ts); functions/app.ts composes the admin API from both.
 */
export const operator = { companies, keys, audit, webhooks: webhookSubscriptions, events, outbound, taxRates };

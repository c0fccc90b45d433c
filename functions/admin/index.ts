import { createRouter } from '../../lib/app';
import { audit } from './audit.routes';
import { catalogueAdmin } from '../catalogue/admin';
import { companies } from './companies.routes';
import { events } from './events.routes';
import { keys } from './keys.routes';
import { webhookSubscriptions } from './webhooks.routes';
import { erasureAdmin } from '../crm/erasure.routes';
import { membersAdmin } from '../crm/admin';
import { bookingsAdmin } from '../stay/admin';
import { listingRequestsAdmin } from '../forms/admin';

/** The platform operator's API (/admin/v1): companies, keys, catalogue content, audit log, webhooks, listing requests. */
export function adminGroup() {
  return createRouter()
    .route('/', companies)
    .route('/', keys)
    .route('/', catalogueAdmin)
    .route('/', audit)
    .route('/', webhookSubscriptions)
    .route('/', events)
    .route('/', membersAdmin)
    .route('/', erasureAdmin)
    .route('/', bookingsAdmin)
    .route('/', listingRequestsAdmin);
}

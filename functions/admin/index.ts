import { createRouter } from '../../lib/app';
import { audit } from './audit';
import { catalogueAdmin } from './catalogue';
import { companies } from './companies';
import { events } from './events';
import { keys } from './keys';
import { webhookSubscriptions } from './webhooks';
import { erasureAdmin } from './erasure';
import { membersAdmin } from './members';
import { bookingsAdmin } from './bookings';
import { listingRequestsAdmin } from './listing-requests';

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

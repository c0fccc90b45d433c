import { createRouter } from '../../lib/app';
import { audit } from './audit';
import { catalogueAdmin } from './catalogue';
import { companies } from './companies';
import { events } from './events';
import { keys } from './keys';
import { webhookSubscriptions } from './webhooks';
import { erasureAdmin } from './erasure';
import { membersAdmin } from './members';

/** The platform operator's API (/admin/v1): companies, keys, catalogue content, audit log, webhooks. */
export function adminGroup() {
  return createRouter()
    .route('/', companies)
    .route('/', keys)
    .route('/', catalogueAdmin)
    .route('/', audit)
    .route('/', webhookSubscriptions)
    .route('/', events)
    .route('/', membersAdmin)
    .route('/', erasureAdmin);
}

import { operator } from './admin/index';
import { catalogueAdmin } from './catalogue/admin';
import { crmAdmin } from './crm/admin';
import { formsAdmin } from './forms/admin';
import { maintenanceAdmin } from './maintenance/admin';
import { paymentsAdmin } from './payments/admin';
import { pipelinesAdmin } from './pipelines/admin';
import { portalsAdmin } from './portals/admin';
import { bookingsAdmin } from './stay/admin';
import { calendarImportsAdmin } from './stay/calendar-imports.routes';
import { guestRegistrationsAdmin } from './stay/guests.routes';
import { tourismDirhamAdmin } from './stay/tourism-dirham.routes';

/**
 * The admin API: the operator's own routes and each group's admin routes (functions/<group>/admin.ts), in the
 * order the admin document has always listed its paths (a document lists paths in registration order).
 */
export const adminRouters = [
  operator.companies,
  operator.keys,
  catalogueAdmin,
  operator.audit,
  operator.webhooks,
  operator.events,
  crmAdmin,
  bookingsAdmin,
  formsAdmin,
  maintenanceAdmin,
  pipelinesAdmin,
  portalsAdmin,
  calendarImportsAdmin,
  paymentsAdmin,
  operator.outbound,
  operator.taxRates,
  guestRegistrationsAdmin,
  tourismDirhamAdmin,
];

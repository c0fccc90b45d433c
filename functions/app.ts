import type { ServicesProvider } from '../lib/env';
import { composeApp, type RouteGroup } from '../lib/compose';
import { problemPages } from '../lib/problem-pages';
import { operator } from './admin/index';
import { catalogueAdmin } from './catalogue/admin';
import { catalogue } from './catalogue/index';
import { crmAdmin } from './crm/admin';
import { crm } from './crm/index';
import { eventsGroup } from './events/index';
import { formsAdmin } from './forms/admin';
import { forms } from './forms/index';
import { internal } from './internal/index';
import { leases } from './leases/index';
import { maintenanceAdmin } from './maintenance/admin';
import { maintenance } from './maintenance/index';
import { paymentsAdmin } from './payments/admin';
import { paymentsGroup } from './payments/index';
import { pipelinesAdmin } from './pipelines/admin';
import { pipelines } from './pipelines/index';
import { portalsAdmin } from './portals/admin';
import { portalsGroup } from './portals/index';
import { bookingsAdmin } from './stay/admin';
import { calendarImportsAdmin } from './stay/calendar-imports.routes';
import { statements } from './statements/index';
import { stay } from './stay/index';
import { webhooks } from './webhooks/index';

const groups = [
  catalogue,
  crm,
  forms,
  stay,
  leases,
  maintenance,
  pipelines,
  statements,
  portalsGroup,
  paymentsGroup,
  eventsGroup,
  webhooks,
] as const;

/** Every route group, in the order the public OpenAPI document lists their paths. Later groups are added here. */
export const routeGroups: readonly RouteGroup[] = groups;

export type GroupName = (typeof groups)[number]['name'];

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
];

/**
 * The whole API (or only some groups), with its OpenAPI documents: the Node server, tests, benches and the
 * default Worker. The admin API is mounted only where asked: it never runs on a company's public Worker by
 * accident. The internal callbacks (QStash's webhook deliveries) are mounted unless `internal` is false. Each
 * group's own Worker composes only its group (functions/<group>/worker.ts).
 */
export function buildApp(
  provide: ServicesProvider,
  options: { groups?: GroupName[]; admin?: boolean; internal?: boolean; maxBodyBytes?: number } = {},
) {
  const names: readonly string[] | undefined = options.groups;
  return composeApp(provide, {
    groups: names ? routeGroups.filter((group) => names.includes(group.name)) : routeGroups,
    admin: options.admin ? adminRouters : undefined,
    internal: (options.internal ?? true) ? internal : undefined,
    maxBodyBytes: options.maxBodyBytes,
    problemPages,
  });
}

import type { ServicesProvider } from '../lib/env';
import { composeApp, type RouteGroup } from '../lib/compose';
import { adminRouters } from './admin-api';
import { problemPages } from '../lib/problem-pages';
import { catalogue } from './catalogue/index';
import { crm } from './crm/index';
import { eventsGroup } from './events/index';
import { forms } from './forms/index';
import { internal } from './internal/index';
import { leases } from './leases/index';
import { maintenance } from './maintenance/index';
import { paymentsGroup } from './payments/index';
import { pipelines } from './pipelines/index';
import { portalsGroup } from './portals/index';
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

/** The admin API's routers, in order (functions/admin-api.ts). */
export { adminRouters };

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

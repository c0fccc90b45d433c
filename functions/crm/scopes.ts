import { serverRoutes } from '../../lib/routes';

/** The CRM's routes: tagged CRM, each asking a server key for one of the CRM's scopes (lib/routes.ts). */
export const crmRoute = serverRoutes('CRM', [
  'read:contacts',
  'write:contacts',
  'read:leads',
  'write:leads',
  'read:followups',
  'write:followups',
  'read:members',
]);

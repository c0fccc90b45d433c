import { serverRoutes } from '../../lib/routes';

/** Maintenance's routes: tagged Maintenance, each asking a server key for one of its scopes (lib/routes.ts). */
export const maintenanceRoute = serverRoutes('Maintenance', ['read:maintenance', 'write:maintenance']);

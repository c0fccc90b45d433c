import { serverRoutes } from '../../lib/routes';

/** The lease group's routes: tagged Leases, each asking a server key for `read:leases` or `write:leases` (lib/routes.ts). */
export const leasesRoute = serverRoutes('Leases', ['read:leases', 'write:leases']);

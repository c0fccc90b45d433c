import { serverRoutes } from '../../lib/routes';

/** The events' routes: tagged Events, each asking a server key for one of its scopes (lib/routes.ts). */
export const eventsRoute = serverRoutes('Events', ['read:events', 'read:audit']);

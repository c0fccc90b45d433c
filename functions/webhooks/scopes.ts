import { serverRoutes } from '../../lib/routes';

/** The webhook endpoints' routes: tagged Webhooks, each asking a server key for one of its scopes (lib/routes.ts). */
export const webhooksRoute = serverRoutes('Webhooks', ['read:webhooks', 'write:webhooks']);

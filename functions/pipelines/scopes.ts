import { serverRoutes } from '../../lib/routes';

/** The pipelines' routes: tagged Pipelines, each asking a server key for one of its scopes (lib/routes.ts). */
export const pipelinesRoute = serverRoutes('Pipelines', ['read:pipelines', 'write:pipelines']);

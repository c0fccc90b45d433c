import { defineGroup } from '../../lib/compose';
import { areas } from './areas.routes';
import { filters } from './filters.routes';
import { integrationWrites } from './integration.routes';
import { listings } from './listings.routes';
import { services } from './services.routes';
import { sitemap } from './sitemap.routes';
import { team } from './team.routes';

/**
 * The public catalogue: reads any page may make (no scheduled work); the only writes are an integration's own
 * listings (integration.routes.ts, server keys with `write:listings`, issue 38). Inside `listings`,
 * /listings/map is registered before /listings/{slug}. Its admin routes (admin.ts: import, publishing, team,
 * services) are composed into the admin API by functions/app.ts.
 */
export const catalogue = defineGroup({
  name: 'catalogue',
  routes: [listings, areas, filters, team, sitemap, services, integrationWrites],
  publicReadPaths: ['/listings', '/listings/map', '/listings/:slug', '/areas', '/filters', '/team', '/sitemap', '/services'],
});

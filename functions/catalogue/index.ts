import { createRouter } from '../../lib/app';
import { publicReadCors } from '../../lib/public-cors';
import { areas } from './areas.routes';
import { filters } from './filters.routes';
import { listings } from './listings.routes';
import { services } from './services.routes';
import { sitemap } from './sitemap.routes';
import { team } from './team.routes';

/**
 * The paths of the public reads: any page may read them (lib/public-cors.ts). Each is named, since a pattern
 * such as `*` would reach the routes of every group mounted beside this one.
 */
const publicPaths = ['/listings', '/listings/map', '/listings/:slug', '/areas', '/filters', '/team', '/sitemap', '/services'];

/** The public catalogue. Inside `listings`, /listings/map is registered before /listings/{slug}. */
export function catalogueGroup() {
  const group = createRouter();
  for (const path of publicPaths) group.use(path, publicReadCors());
  return group
    .route('/', listings)
    .route('/', areas)
    .route('/', filters)
    .route('/', team)
    .route('/', sitemap)
    .route('/', services);
}

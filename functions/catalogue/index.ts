import { createRouter } from '../../lib/app';
import { areas } from './areas';
import { filters } from './filters';
import { listings } from './listings';
import { services } from './services';
import { sitemap } from './sitemap';
import { team } from './team';

/** The public catalogue. Inside `listings`, /listings/map is registered before /listings/{slug}. */
export function catalogueGroup() {
  return createRouter()
    .route('/', listings)
    .route('/', areas)
    .route('/', filters)
    .route('/', team)
    .route('/', sitemap)
    .route('/', services);
}

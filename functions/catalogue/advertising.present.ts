import type { ListingAdvertising } from './listing-changes';
import { presentPermit } from './listings.present';
import { portals } from '../../schema/common/permits';

/** A listing's advertising as the admin reads it back: its permit, its agent, the portals it goes to. */
export function presentAdvertising(row: ListingAdvertising) {
  return {
    id: row.id,
    slug: row.slug,
    permit: presentPermit(row),
    agent_id: row.agent_id,
    portals: Object.fromEntries(portals.map((portal) => [portal, !row.portals_off.includes(portal)])) as Record<
      (typeof portals)[number],
      boolean
    >,
  };
}

import type { ListingAdvertising } from './listing-changes';
import { portals } from '../../schema/common/permits';

/** A listing's advertising as the admin reads it back: its permit, its agent, the portals it goes to. */
export function presentAdvertising(row: ListingAdvertising) {
  return {
    id: row.id,
    slug: row.slug,
    permit:
      row.permit_number === null || row.permit_authority === null || row.permit_expires_on === null
        ? null
        : {
            number: row.permit_number,
            authority: row.permit_authority,
            expires_on: row.permit_expires_on,
            verification_url: row.permit_url,
            status: row.permit_expired ? ('expired' as const) : ('valid' as const),
          },
    agent_id: row.agent_id,
    portals: Object.fromEntries(portals.map((portal) => [portal, !row.portals_off.includes(portal)])) as Record<
      (typeof portals)[number],
      boolean
    >,
  };
}

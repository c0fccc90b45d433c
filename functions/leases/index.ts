import { defineGroup } from '../../lib/compose';
import { leases as leaseRoutes } from './leases.routes';

/** Leases (server keys only): drafts, activation, notices, renewal, end, each with its payment schedule. */
export const leases = defineGroup({
  name: 'leases',
  routes: [leaseRoutes],
});

import { defineGroup } from '../../lib/compose';
import { portalCheck } from './check.routes';
import { feeds } from './feeds.routes';
import { portalJobs } from './jobs';

/**
 * The portals (issue 25): each company's Property Finder and Bayut/dubizzle XML feeds at its secret token's URLs,
 * the portal check (server keys with read:listings), and the scheduled work on advertising permits. Its admin
 * routes (admin.ts: the feeds' URLs, their rotation, the check) are composed into the admin API by functions/app.ts.
 */
export const portalsGroup = defineGroup({
  name: 'portals',
  routes: [feeds, portalCheck],
  jobs: portalJobs,
});

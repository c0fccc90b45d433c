import { buildApp, type GroupName, routeGroups } from './app';
import { provideWorkerServices, scheduledEntry, workerEntry } from '../lib/worker';

/**
 * The default Worker: every route group, the QStash delivery callback, and the scheduler on Cron Triggers;
 * the admin API only where the var ADMIN_API is "on".
 */
const groups = Object.keys(routeGroups) as GroupName[];

export default {
  ...workerEntry(({ admin, maxBodyBytes }) => buildApp(provideWorkerServices, { groups, admin, maxBodyBytes })),
  ...scheduledEntry(),
};

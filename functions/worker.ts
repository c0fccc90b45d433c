import { scheduledEntry, workerEntry, workerServices } from '../lib/worker';
import { createWebhookRuntime } from '../lib/webhooks/runtime';
import { buildApp } from './app';
import { scheduledJobs } from './jobs';

/**
 * The default Worker: every route group, the QStash delivery callback, and every scheduled job (the platform's
 * and each group's) on Cron Triggers; the admin API only where the var ADMIN_API is "on".
 */
const services = workerServices(createWebhookRuntime);

export default {
  ...workerEntry(({ admin, maxBodyBytes }) => buildApp(services.provide, { admin, maxBodyBytes })),
  ...scheduledEntry(scheduledJobs, services),
};

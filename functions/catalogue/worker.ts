import { buildApp } from '../app';
import { provideWorkerServices, workerEntry } from '../../lib/worker';

/** The catalogue deployed alone (wrangler env "catalogue"): never the admin API (whatever ADMIN_API says), nor QStash callbacks. */
export default workerEntry(({ maxBodyBytes }) =>
  buildApp(provideWorkerServices, { groups: ['catalogue'], admin: false, internal: false, maxBodyBytes }),
);

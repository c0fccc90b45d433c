import { defineGroup } from '../../lib/compose';
import { activities } from './activities.routes';
import { contacts } from './contacts.routes';
import { crmJobs } from './jobs';
import { leads } from './leads.routes';
import { members } from './members.routes';
import { tasks } from './tasks.routes';

/**
 * CRM sync: contacts, members and departments, leads, activities, tasks (server keys only); its scheduled work:
 * lead escalation and the retention rule. Its admin routes (admin.ts: members, departments, erasure) are
 * composed into the admin API by functions/app.ts.
 */
export const crm = defineGroup({
  name: 'crm',
  routes: [contacts, members, leads, activities, tasks],
  jobs: crmJobs,
});

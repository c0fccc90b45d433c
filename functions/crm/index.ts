import { createRouter } from '../../lib/app';
import { activities } from './activities.routes';
import { contacts } from './contacts.routes';
import { leads } from './leads.routes';
import { members } from './members.routes';
import { tasks } from './tasks.routes';

/** CRM sync: contacts, leads, activities, tasks, members and departments (server keys only). */
export function crmGroup() {
  // Each resource router is mounted here as it is built: contacts, leads, activities, tasks, members.
  return createRouter().route('/', contacts).route('/', members).route('/', leads).route('/', activities).route('/', tasks);
}

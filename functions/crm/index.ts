import { createRouter } from '../../lib/app';
import { activities } from './activities';
import { contacts } from './contacts';
import { leads } from './leads';
import { members } from './members';
import { tasks } from './tasks';

/** CRM sync: contacts, leads, activities, tasks, members and departments (server keys only). */
export function crmGroup() {
  // Each resource router is mounted here as it is built: contacts, leads, activities, tasks, members.
  return createRouter().route('/', contacts).route('/', members).route('/', leads).route('/', activities).route('/', tasks);
}

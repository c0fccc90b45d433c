import type { ScheduledJob } from '../../lib/scheduler';
import { matchSavedSearches } from './saved-search-matches';

/** The saved searches compared with the catalogue, each at most every few minutes (saved-search-matches.ts). */
export const savedSearchJobs: ScheduledJob[] = [
  { name: 'saved_search_matches', run: ({ db, now }) => matchSavedSearches(db, now()) },
];

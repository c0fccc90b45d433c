import ICAL from 'ical.js';
import { parentPort } from 'node:worker_threads';
import { type FeedInput, readFeedBounded } from '../ical-read';

/**
 * The worker thread's entry (lib/node/feed-reader.ts bundles it): reads each feed it is sent and answers it. The thread
 * is kept for the next feed, so before each read ical.js's one registry of timezones (where a feed's VTIMEZONEs go) is
 * put back as a new thread has it: a feed is read as by a thread of its own, whatever the feeds before it defined.
 */
parentPort?.on('message', (input: FeedInput) => {
  ICAL.TimezoneService._hard_reset();
  parentPort?.postMessage(readFeedBounded(input));
});

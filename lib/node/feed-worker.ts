import { parentPort, workerData } from 'node:worker_threads';
import { type FeedInput, readFeedBounded } from '../ical-read';

/** The worker thread's entry (lib/node/feed-reader.ts bundles it): reads the feed it is given and answers. */
parentPort?.postMessage(readFeedBounded(workerData as FeedInput));

/**
 * The bench's server process (bench/server.ts), bundled by bench/run.ts as `npm start`'s server is (bin/build-server.mjs)
 * and run by plain Node: its memory and start are the product's, not tsx's.
 */
import { runServer } from './server';

await runServer();

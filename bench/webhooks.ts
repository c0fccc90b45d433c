/**
 * `npm run bench` (second part), or `npm run bench:webhooks` alone, on a fresh PostgreSQL database:
 *   1. deliveries per second of the in-process dispatcher (the Node server's batch and concurrency) to a
 *      loopback receiver in a child process that answers 204, against the same number of signed POSTs sent
 *      without the database (the bare baseline);
 *   2. what recording an event (with its fan-out) adds to a write: a transaction inserting an audit row, alone
 *      and with recordEvent for a company with 0, 1 and 5 matching subscriptions.
 * Ratios are printed; everything goes to bench/results/webhooks-latest.json. See docs/performance.md.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openPostgres } from '../lib/db/postgres';
import { createNodePlatform } from '../lib/node/platform';
import { newSecretKey } from '../lib/webhooks/secrets';
import { round, toJson } from './report';
import { measureBarePosts, measureDispatcher, measureWrites, writeVariants } from './webhooks-measure';

const SCRIPT = fileURLToPath(import.meta.url);
const int = (name: string, fallback: number) => Number(process.env[name] || fallback);

/** The receiver child: answers every request 204 and, when asked, says how many it got. */
function runReceiver(): void {
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.writeHead(204).end();
    });
  }).listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
  process.on('message', () => process.send?.({ count }));
  process.on('disconnect', () => process.exit(0));
}

async function main(): Promise<void> {
  const events = int('BENCH_WEBHOOK_EVENTS', 2000);
  const writes = int('BENCH_WRITES', 2000);
  const baseUrl = process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
  const dbName = `pa_bench_wh_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database "${dbName}"`);
  const receiver = fork(SCRIPT, [], {
    env: { ...process.env, BENCH_ROLE: 'receiver' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const received = () =>
    new Promise<number>((resolve) => {
      receiver.once('message', (m: { count: number }) => resolve(m.count));
      receiver.send('count');
    });
  try {
    const { port } = await new Promise<{ port: number }>((resolve) => receiver.once('message', resolve as never));
    const url = new URL(baseUrl);
    url.pathname = `/${dbName}`;
    const platform = await createNodePlatform({ WEBHOOK_SECRET_KEY: newSecretKey() }, { handle: openPostgres(url.toString()) });
    const hook = `http://127.0.0.1:${port}/hook`;

    const bare = await measureBarePosts(hook, events);
    const dispatcher = await measureDispatcher(platform, hook, events);
    const got = (await received()) - events;
    if (got !== events || dispatcher.succeeded !== events) {
      throw new Error(`expected ${events} deliveries, the receiver got ${got} (${dispatcher.succeeded} succeeded)`);
    }
    const msPerWrite = await measureWrites(platform, hook, writes);
    await platform.handle.close();

    const perSecond = (seconds: number) => round(events / seconds, 0);
    const results = {
      at: new Date().toISOString(),
      machine: {
        cpus: os.cpus().length,
        cpu: os.cpus()[0]?.model,
        node: process.version,
        loadavg: os.loadavg().map((l) => round(l)),
      },
      dispatcher: {
        deliveries: events,
        batch: dispatcher.batch,
        concurrency: dispatcher.concurrency,
        deliveries_per_second: perSecond(dispatcher.seconds),
        bare_posts_per_second: perSecond(bare.seconds),
        ratio_to_bare: round(bare.seconds / dispatcher.seconds, 3),
      },
      writes: writeVariants.map((v, i) => ({
        write: v.name,
        transactions: writes,
        ms_per_write: round(msPerWrite[i]!, 3),
        writes_per_second: round(1000 / msPerWrite[i]!, 0),
        ratio_to_audit_only: round(msPerWrite[i]! / msPerWrite[0]!, 2),
      })),
    };
    const d = results.dispatcher;
    console.log('\n| Webhook deliveries to loopback | per second | ÷ bare |\n|---|---:|---:|');
    console.log(`| signed POSTs without the database (bare, ${d.concurrency} at a time) | ${d.bare_posts_per_second} | 1 |`);
    console.log(
      `| in-process dispatcher (batch ${d.batch}, ${d.concurrency} at a time) | ${d.deliveries_per_second} | ${d.ratio_to_bare} |`,
    );
    console.log('\n| Write (one transaction, sequential) | ms/write | writes/s | time ÷ audit row only |\n|---|---:|---:|---:|');
    for (const w of results.writes)
      console.log(`| ${w.write} | ${w.ms_per_write} | ${w.writes_per_second} | ${w.ratio_to_audit_only} |`);
    const file = join(dirname(SCRIPT), 'results', 'webhooks-latest.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${toJson(results)}\n`);
  } finally {
    receiver.disconnect();
    // The pool has ended, but its backends may still be exiting (a forced drop would make them log an error).
    for (let i = 0; i < 40; i++) {
      const { rows } = await admin.query('select count(*)::int as n from pg_stat_activity where datname = $1', [dbName]);
      if (rows[0].n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await admin.query(`drop database if exists "${dbName}" with (force)`);
    await admin.end();
  }
}

if (process.env.BENCH_ROLE === 'receiver') runReceiver();
else
  await main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });

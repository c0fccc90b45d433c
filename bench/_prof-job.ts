import { createKey } from '../lib/keys';
import { buildApp } from '../functions/app';
import { seedDemo } from '../functions/seed';
import { openPostgres } from '../lib/db/postgres';
import { createNodePlatform } from '../lib/node/platform';
const url = process.env.BENCH_DATABASE_URL!;
const handle = openPostgres(url, { max: 4 });
const platform = await createNodePlatform({ DATABASE_URL: url, RATE_LIMIT_SERVER_KEY_PER_MINUTE: '100000000', UPSTASH_REDIS_REST_URL: '', UPSTASH_REDIS_REST_TOKEN: '' }, { handle });
const demo = await seedDemo(handle.db, new Date());
const { secret } = await handle.db.transaction().execute((trx) => createKey(trx, demo.companyId, { kind: 'server', scopes: ['read:pipelines', 'write:pipelines', 'read:maintenance', 'write:maintenance'] }, 'admin'));
const app = buildApp(platform.provide, { maxBodyBytes: platform.config.MAX_BODY_BYTES });
let n = 0;
const kind = process.env.WHAT ?? 'job';
const post = (path: string, body: unknown) => app.fetch(new Request(`http://localhost${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${secret}` }, body: JSON.stringify(body) }));
const one = async () => {
  const r = kind === 'job'
    ? await post('/api/v1/jobs', { home: 'jvc-2br-townhouse', category: 'general', problem: `Job ${n++}` })
    : await post('/api/v1/deals', { person: { name: `P ${n}`, email: `p.${process.pid}.${n++}@bench.example` }, pipeline: 'sales', title: 'Bench deal', value: '1000000', home: 'marina-gate-2br-sea-view' });
  if (r.status !== 201) throw new Error(`${r.status} ${await r.text()}`);
  await r.arrayBuffer();
};
for (let i = 0; i < 300; i++) await one();
const { Session } = await import('node:inspector/promises');
const s = new Session(); s.connect(); await s.post('Profiler.enable'); await s.post('Profiler.start');
const t = performance.now(); const cpu = process.cpuUsage();
const N = 1500;
for (let i = 0; i < N; i++) await one();
const used = process.cpuUsage(cpu);
const { profile } = await s.post('Profiler.stop');
(await import('node:fs')).writeFileSync('/tmp/job.cpuprofile', JSON.stringify(profile));
console.log(kind, 'cpu ms/req', ((used.user + used.system) / 1000 / N).toFixed(3), 'wall', ((performance.now() - t) / N).toFixed(3));
await handle.close(); process.exit(0);

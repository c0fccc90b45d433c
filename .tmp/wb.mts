import { readFile } from 'node:fs/promises';
import { buildWorkers } from '/work/main/bin/build-workers';
const out = process.argv[2]!;
for (const b of await buildWorkers(out)) {
  if (b.name !== 'worker-catalogue' && !b.name.endsWith('catalogue')) continue;
  const m = JSON.parse(await readFile(b.metafile, 'utf8'));
  const d: Record<string, number> = {};
  for (const o of Object.values<any>(m.outputs)) for (const [k, x] of Object.entries<any>(o.inputs)) d[k] = (d[k] ?? 0) + x.bytesInOutput;
  console.log(b.name, b.gzipBytes);
  for (const [k, v] of Object.entries(d).sort((a, b) => b[1] - a[1]).filter(([k]) => /lib\/(stay|bookings|tax|calendar|transitions|money|dates)|free-dates|schema\/common\/quote|schema\/stay/.test(k))) console.log(v, k);
}

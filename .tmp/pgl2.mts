import { readFile, writeFile } from 'node:fs/promises';
import { openPGlite } from '/work/main/lib/db/pglite';
import { sql } from 'kysely';
const f = process.argv[2]!;
const h0 = await openPGlite({ loadDataDir: new Blob([await readFile(f)]) });
const raw = await h0.pglite.dumpDataDir('none');
await writeFile('/tmp/snap.tar', Buffer.from(await raw.arrayBuffer()));
await h0.close();
for (const file of ['/tmp/snap.tar', f, '/tmp/snap.tar', f]) {
  const t0 = performance.now();
  const snap = await readFile(file);
  const h = await openPGlite({ loadDataDir: new Blob([snap]) });
  const t1 = performance.now();
  await sql`select count(*) from companies`.execute(h.db);
  await h.close();
  console.log(file, snap.length, 'open', Math.round(t1 - t0));
}

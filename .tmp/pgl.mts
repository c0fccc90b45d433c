import { readFile } from 'node:fs/promises';
import { openPGlite } from '/work/main/lib/db/pglite';
import { sql } from 'kysely';
const f = process.argv[2]!;
for (let i = 0; i < 3; i++) {
  const t0 = performance.now();
  const snap = await readFile(f);
  const h = await openPGlite({ loadDataDir: new Blob([snap]) });
  const t1 = performance.now();
  await sql`select count(*) from companies`.execute(h.db);
  const t2 = performance.now();
  await h.close();
  console.log('open', Math.round(t1 - t0), 'first query', Math.round(t2 - t1), 'close', Math.round(performance.now() - t2));
}

import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { docsScriptFile } from '../lib/node/docs-script';
import { docsScriptPath } from '../lib/security-headers';

/**
 * The Workers' static assets (wrangler.jsonc `assets`, `./dist/assets`): the reference page's script at the path the
 * page loads it from, copied from the pinned `@scalar/api-reference`. The Node server reads the same file
 * (lib/node/docs-script.ts); a Worker never runs for it, so it stays out of every bundle.
 *
 * Wrangler runs this file before every `wrangler dev` and `wrangler deploy` (wrangler.jsonc `build.command`), so a
 * fresh clone needs no build step of its own; `npm run build:worker` starts ten of those at once, so the copy is
 * written under a temporary name and renamed (a reader never sees half a file), and skipped when already there.
 */
export async function writeDocsAssets(root: string): Promise<string> {
  const target = join(root, 'dist', 'assets', ...docsScriptPath.split('/').filter(Boolean));
  const script = await readFile(docsScriptFile());
  const present = await readFile(target).catch(() => undefined);
  if (present?.equals(script)) return target;
  await mkdir(dirname(target), { recursive: true });
  const temporary = `${target}.${process.pid}.tmp`;
  await writeFile(temporary, script);
  await rename(temporary, target);
  return target;
}

// Run by wrangler in the folder of wrangler.jsonc (the repository's root), whose dist/assets it reads next.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const target = await writeDocsAssets(process.cwd());
  console.log(`static assets: ${target}`);
}

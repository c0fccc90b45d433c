import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { docsScriptFile } from '../lib/node/docs-script';
import { docsScriptPath } from '../lib/security-headers';

/**
 * The Workers' static assets (wrangler.toml `[assets]`, `./dist/assets`): the reference page's script at the path
 * the page loads it from, copied from the pinned `@scalar/api-reference`. The Node server reads the same file
 * (lib/node/docs-script.ts); a Worker never runs for it, so it stays out of every bundle.
 */
export async function writeDocsAssets(root: string): Promise<string> {
  const target = join(root, 'dist', 'assets', ...docsScriptPath.split('/').filter(Boolean));
  await mkdir(dirname(target), { recursive: true });
  await copyFile(docsScriptFile(), target);
  return target;
}

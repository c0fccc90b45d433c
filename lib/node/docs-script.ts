import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The reference page's script on Node: `@scalar/api-reference`'s standalone bundle from the project's own pinned
 * dependency (package.json), read once from node_modules. Nothing is loaded from a CDN, so /api/v1/docs works
 * offline. (Workers serve the same file as a static asset: docs/api-reference.md, "Reference page".)
 */
let script: Promise<string> | undefined;

export function docsScript(): Promise<string> {
  script ??= readFile(docsScriptFile(), 'utf8');
  return script;
}

/** Where the standalone bundle is: the package exports no path to it; it sits beside the entry point. */
export function docsScriptFile(): string {
  const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
  return join(dirname(entry), 'browser', 'standalone.js');
}

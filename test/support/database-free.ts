import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import ts from 'typescript';
import { specifiersOf } from './imports.ts';

/**
 * The test files that cannot touch a database, judged by what they import (test/support/passes.ts says why CI runs
 * them in the PGlite pass only). A file is database-free when everything it reaches through its imports, type-only
 * ones left out (they are erased), is known: relative imports that resolve to a file, none of them one that opens a
 * database or holds the test API (`databaseModules`), and packages from `harmlessPackages` alone (none opens a
 * database or starts another process). Anything else makes it a database test: an import that does not resolve, a
 * package not in the list, a dynamic `import()` of a computed name, a `require`. So a file can only be wrongly kept
 * in both passes, never wrongly left out of one (test/platform/passes.test.ts).
 */
export const databaseModules = ['lib/db/pglite.ts', 'lib/db/postgres.ts', 'lib/db/index.ts', 'test/support/harness.ts'];

/** Packages that neither open a database nor start a process (node: built-ins apart from the ones that do). */
export const harmlessPackages = [
  'vitest',
  'fast-check',
  'typescript',
  'kysely',
  'openapi-fetch',
  'jose',
  'ipaddr.js',
  'ajv',
  '@hono/node-server',
  '@scalar/hono-api-reference',
  '@readme/openapi-parser',
  'ajv-formats',
  'fast-xml-builder',
  'fast-xml-parser',
  'libphonenumber-js',
  'lru-cache',
  'pg-connection-string',
  'pluralize',
  'saxon-js',
  'standardwebhooks',
  'stripe',
  'undici',
  'xmllint-wasm',
  'ioredis',
  'hono',
  'zod',
  '@hono/zod-openapi',
  'big.js',
  'canonicalize',
  'countries-and-timezones',
  '@date-fns/tz',
  '@upstash/redis',
  '@upstash/ratelimit',
];
const processBuiltins = ['child_process', 'cluster', 'worker_threads'];

const packageOf = (specifier: string) => {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
};

export function harmlessPackage(specifier: string): boolean {
  const bare = specifier.replace(/^node:/, '');
  const top = bare.split('/')[0]!;
  if (specifier.startsWith('node:') || builtinModules.includes(top)) return !processBuiltins.includes(top);
  return harmlessPackages.includes(packageOf(specifier));
}

const posix = (path: string) => path.split(sep).join('/');
const resolution: ts.CompilerOptions = { moduleResolution: ts.ModuleResolutionKind.Bundler, resolveJsonModule: true };
const resolutionCache = ts.createModuleResolutionCache(process.cwd(), (f) => f, resolution);

/** What one file shows by itself: a reason it may touch a database, or the files it imports (relative to `root`). */
function readFile(root: string, file: string): { reason: string | null; next: string[] } {
  if (databaseModules.includes(file)) return { reason: `${file} opens a database`, next: [] };
  const full = join(root, file);
  if (!existsSync(full)) return { reason: `${file} is not there`, next: [] };
  if (file.endsWith('.json')) return { reason: null, next: [] };
  const next: string[] = [];
  for (const { specifier, typeOnly } of specifiersOf(full, readFileSync(full, 'utf8'))) {
    if (typeOnly) continue;
    if (specifier === '') return { reason: `${file} loads a module by a name the scan cannot read`, next: [] };
    if (!specifier.startsWith('.')) {
      if (!harmlessPackage(specifier)) return { reason: `${file} imports ${specifier}`, next: [] };
      continue;
    }
    const resolved = ts.resolveModuleName(specifier, full, resolution, ts.sys, resolutionCache).resolvedModule;
    const target = resolved ? posix(relative(root, resolved.resolvedFileName)) : null;
    if (!target || target.startsWith('..') || target.includes('node_modules/')) {
      return { reason: `${file} imports ${specifier}, which is not a file of the repository`, next: [] };
    }
    // Reaching the test API or a database directly settles it: what else the file imports need not be read.
    if (databaseModules.includes(target)) return { reason: `${file} → ${target} opens a database`, next: [] };
    next.push(target);
  }
  return { reason: null, next };
}

/**
 * For each file `starts` reach (relative to `root`), why it may touch a database (the chain of imports to what
 * does), or null when it cannot. Import circles are followed to the end: a file is free only when nothing it
 * reaches, through any path, gives a reason.
 */
export function databaseReasons(root: string, starts: string[]): Map<string, string | null> {
  const files = new Map<string, { reason: string | null; next: string[] }>();
  const queue = [...starts];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (files.has(file)) continue;
    const read = readFile(root, file);
    files.set(file, read);
    queue.push(...read.next);
  }
  const reasons = new Map([...files].map(([file, read]) => [file, read.reason]));
  for (let changed = true; changed; ) {
    changed = false;
    for (const [file, { next }] of files) {
      if (reasons.get(file)) continue;
      const reached = next.find((target) => reasons.get(target));
      if (reached === undefined) continue;
      reasons.set(file, `${file} → ${reasons.get(reached)}`);
      changed = true;
    }
  }
  return reasons;
}

/** The test files below `root`'s test/ (the workerd tests apart: their own config). */
export function testFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === 'workerd' && dirname(path) === join(root, 'test') ? [] : walk(path);
      return entry.name.endsWith('.test.ts') ? [posix(relative(root, path))] : [];
    });
  return walk(join(root, 'test')).sort();
}

/** The test files below `root` that cannot touch a database. */
export function databaseFreeTests(root: string): string[] {
  const tests = testFiles(root);
  const reasons = databaseReasons(root, tests);
  return tests.filter((file) => reasons.get(file) === null);
}

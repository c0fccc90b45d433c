import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { routeGroups } from '../functions/app';
import type { RouteGroup } from '../lib/compose';

/**
 * Writes functions/route-table.ts: which (method, path) each route group serves, as the root app mounts it (its API
 * under /api/v1, its pages at the root, its public reads' and forms' CORS paths), so that the Node server knows which
 * groups a request needs without loading any (functions/lazy-app.ts). `npx tsx bin/route-table.ts` after changing a
 * group's routes; test/platform/route-table.test.ts fails while the file is not what this writes.
 */
export function routesOf(group: RouteGroup): [string, string][] {
  const api = group.routes.flatMap((router) => router.routes.map((route) => [route.method, `/api/v1${route.path}`]));
  const pages = group.pages ? group.pages().routes.map((route) => [route.method, route.path]) : [];
  const cors = [...(group.publicReadPaths ?? []), ...(group.formPaths ?? [])].map((path) => ['ALL', `/api/v1${path}`]);
  const seen = new Set<string>();
  const rows: [string, string][] = [];
  for (const [method, path] of [...api, ...pages, ...cors]) {
    const key = `${method} ${path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    rows.push([method as string, path as string]);
  }
  return rows;
}

export function routeTableSource(): string {
  const lines = routeGroups.map((group) => {
    const rows = routesOf(group).map(([method, path]) => `    ['${method}', '${path}'],`);
    return `  ${group.name}: [\n${rows.join('\n')}\n  ],`;
  });
  const forms = routeGroups
    .filter((group) => (group.formPaths ?? []).length > 0)
    .map((group) => `  ${group.name}: [${(group.formPaths ?? []).map((path) => `'${path}'`).join(', ')}],`);
  return `// Written by \`npx tsx bin/route-table.ts\` from the route groups (functions/*/index.ts); do not edit.
// test/platform/route-table.test.ts checks it against the groups as they are.

/** Each route group's (method, path) as the root app mounts them, in the order the root app composes the groups. */
export const routeTable = {
${lines.join('\n')}
} as const;

/** Each group's browser forms under /api/v1 (\`formPaths\`): the root app runs their CORS ahead of the body limit. */
export const formPaths: { readonly [group: string]: readonly string[] } = {
${forms.join('\n')}
};
`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(fileURLToPath(new URL('../functions/route-table.ts', import.meta.url)), routeTableSource());
}

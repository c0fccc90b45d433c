import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The one shape (issue 22, docs/invariants.md) in the groups that follow it so far, the catalogue and the portals:
 * a route file (`*.routes.ts`, `admin.ts`) only declares routes and hands each to a named handler (no query builder
 * call), and no file reads the real clock (`new Date()` without arguments, `Date.now()`): time is the services'.
 */
const groups = ['functions/catalogue', 'functions/portals'];
const sources = groups.flatMap((dir) =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => ({ file: `${dir}/${name}`, text: readFileSync(`${dir}/${name}`, 'utf8') })),
);
const routeFiles = sources.filter(({ file }) => file.endsWith('.routes.ts') || file.endsWith('/admin.ts'));

/** The offences of one rule, as `file:line: text`. */
function offences(files: typeof sources, pattern: RegExp): string[] {
  return files.flatMap(({ file, text }) =>
    text.split('\n').flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
}

describe('the catalogue and portals groups', () => {
  it('have route files', () => {
    expect(routeFiles.length).toBeGreaterThanOrEqual(8);
  });

  it('keep queries out of route files', () => {
    expect(offences(routeFiles, /\b(selectFrom|insertInto|updateTable|deleteFrom)\b|\bsql`/)).toEqual([]);
  });

  it('hand every route to a named handler (no anonymous arrow in .openapi)', () => {
    expect(offences(routeFiles, /\.openapi\([^)]*\b(async\s*)?\(c\)\s*=>/)).toEqual([]);
  });

  it('read no clock of their own', () => {
    expect(offences(sources, /new Date\(\)|Date\.now\(\)/)).toEqual([]);
  });

  it('and the checks find what they look for', () => {
    const broken = [
      { file: 'x.routes.ts', text: "const rows = await db.selectFrom('listings').execute();" },
      { file: 'y.routes.ts', text: 'export const r = createRouter().openapi(route, async (c) => c.json({}));' },
      { file: 'z.ts', text: 'const now = new Date();' },
    ];
    expect(offences(broken, /\b(selectFrom|insertInto|updateTable|deleteFrom)\b|\bsql`/)).toHaveLength(1);
    expect(offences(broken, /\.openapi\([^)]*\b(async\s*)?\(c\)\s*=>/)).toHaveLength(1);
    expect(offences(broken, /new Date\(\)|Date\.now\(\)/)).toHaveLength(1);
  });
});

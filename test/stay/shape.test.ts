import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readImportGraph } from '../support/imports';
import { anonymousHandlers, clockReads, describeFinding, groupRouteHelpers, queriesInRouteFiles } from '../support/shape';

/**
 * The stay group in the one shape (issue 22): its route files (`*.routes.ts`, `admin.ts`) only declare and delegate
 * to named handlers, no file reads the real clock, and it keeps no route helper of its own. The checks are
 * test/support/shape.ts's (proven on fixture trees in test/platform/layout.test.ts), run on functions/stay alone.
 */
const repository = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const whole = readImportGraph(repository);
const graph = { ...whole, files: whole.files.filter((f) => f.startsWith('functions/stay/')) };

describe('functions/stay in the one shape', () => {
  it('reads the group', () => {
    expect(graph.files).toContain('functions/stay/admin.ts');
    expect(graph.files.filter((f) => f.endsWith('.routes.ts')).length).toBeGreaterThanOrEqual(4);
  });
  it('holds no query in a route file', () => expect(queriesInRouteFiles(graph).map(describeFinding)).toEqual([]));
  it('reads no clock but the services’ and the scheduler’s', () => expect(clockReads(graph).map(describeFinding)).toEqual([]));
  it('keeps no route helper of its own', () => expect(groupRouteHelpers(graph).map(describeFinding)).toEqual([]));
  it('names every handler', () => expect(anonymousHandlers(graph).map(describeFinding)).toEqual([]));
});

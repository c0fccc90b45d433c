import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseFreeTests, databaseReasons, testFiles } from '../support/database-free';
import { sourceBuildTests } from '../support/passes';

/**
 * CI's PostgreSQL pass leaves out the test files that cannot touch a database (test/support/passes.ts): the scan that
 * says which must never call a database test free. Proved on small trees of its own, then on this repository.
 */

const repository = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('which test files cannot touch a database', () => {
  const root = mkdtempSync(join(tmpdir(), 'passes-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  };
  write('lib/money.ts', "import Big from 'big.js';\nexport const add = (a: string) => new Big(a).toString();\n");
  write('lib/db/index.ts', "export * from './pglite';\n");
  write('lib/db/pglite.ts', "import { PGlite } from '@electric-sql/pglite';\nexport const open = () => new PGlite();\n");
  write('lib/store.ts', "import { open } from './db/index';\nexport const store = open;\n");
  write('lib/a.ts', "import { b } from './b';\nexport const a = () => b;\nexport const x = 1;\n");
  write('lib/b.ts', "import { x } from './a';\nimport { store } from './store';\nexport const b = () => [x, store];\n");
  write('lib/c.ts', "import { x } from './a';\nexport const c = x;\n");
  write('test/support/harness.ts', 'export const createTestApi = async () => ({});\n');
  write('test/support/deep.ts', "export { store } from '../../lib/store';\n");
  const cases: Record<string, [string, RegExp | null]> = {
    'test/pure.test.ts': [
      "import { add } from '../lib/money';\nimport { it } from 'vitest';\nit('adds', () => add('1'));\n",
      null,
    ],
    'test/typed.test.ts': [
      "import type { createTestApi } from './support/harness';\nexport type T = typeof createTestApi;\n",
      null,
    ],
    'test/api.test.ts': ["import { createTestApi } from './support/harness';\nawait createTestApi();\n", /harness\.ts opens/],
    'test/deep.test.ts': [
      "import { store } from './support/deep';\nstore();\n",
      /deep\.ts → lib\/store\.ts → lib\/db\/index\.ts/,
    ],
    'test/circle.test.ts': ["import { c } from '../lib/c';\nc;\n", /lib\/c\.ts → lib\/a\.ts → lib\/b\.ts → lib\/store\.ts/],
    'test/pg.test.ts': ["import pg from 'pg';\npg;\n", /imports pg$/],
    'test/spawn.test.ts': ["import { spawn } from 'node:child_process';\nspawn('npm', ['start']);\n", /child_process/],
    'test/unknown.test.ts': ["import x from 'some-new-package';\nx;\n", /some-new-package/],
    'test/computed.test.ts': ["const name = '../lib/store';\nawait import(name);\n", /cannot read/],
    'test/require.test.ts': ["const m = require('../lib/money');\nm;\n", /cannot read/],
    'test/missing.test.ts': ["import { gone } from './support/gone';\ngone;\n", /not a file of the repository/],
  };
  for (const [file, [text]] of Object.entries(cases)) write(file, text);

  it.each(Object.entries(cases))('%s', (file, [, expected]) => {
    const reason = databaseReasons(root, [file]).get(file);
    if (expected === null) expect(reason).toBeNull();
    else expect(reason).toMatch(expected);
  });

  it('lists the free files of a tree, sorted', () => {
    expect(databaseFreeTests(root)).toEqual(['test/pure.test.ts', 'test/typed.test.ts']);
  });
});

describe('this repository', () => {
  const free = databaseFreeTests(repository);

  it('finds files of both kinds', () => {
    expect(free).toContain('test/platform/money.test.ts');
    expect(free).toContain('test/platform/passes.test.ts');
    expect(free.length).toBeLessThan(testFiles(repository).length / 2);
  });

  it('never calls free a file that names the test API, a database or a spawned process (the cases above apart)', () => {
    const named = free.filter(
      (file) =>
        file !== 'test/platform/passes.test.ts' &&
        /createTestApi|openTestDatabase|openPGlite|openPostgres|DatabaseHandle|inject\(|child_process|spawn/.test(
          readFileSync(join(repository, file), 'utf8').replace(/^\s*(\/\/|\*).*$/gm, ''),
        ),
    );
    expect(named).toEqual([]);
  });

  it('runs in one pass each test that builds a package in the source tree (two passes would build it together)', () => {
    const building = testFiles(repository).filter((file) =>
      /\bnpm', \['pack'|build\.mjs/.test(readFileSync(join(repository, file), 'utf8').replace(/^\s*(\/\/|\*).*$/gm, '')),
    );
    expect(building).toEqual(sourceBuildTests);
  });
});

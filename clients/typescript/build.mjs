// Builds the package into dist/ (run by `npm run build` and before `npm pack`): dist/index.js, this package and
// openapi-fetch as one ES module with no import of its own (plain Node, and a browser page without a bundler or an
// import map); dist/index.d.ts by tsc; dist/schema.d.ts, the types generated from the OpenAPI document, as they are.
// esbuild and typescript are the repository's own (this folder lives in it), found from here up.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
rmSync(join(here, 'dist'), { recursive: true, force: true });
mkdirSync(join(here, 'dist'));
const { buildSync } = require('esbuild');
buildSync({
  entryPoints: [join(here, 'src/index.ts')],
  bundle: true,
  format: 'esm',
  target: 'es2022',
  platform: 'neutral',
  legalComments: 'none',
  logLevel: 'warning',
  banner: { js: '// @property-api/client: built by build.mjs from src/ (openapi-fetch included).' },
  outfile: join(here, 'dist/index.js'),
});
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(here, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
copyFileSync(join(here, 'src/schema.d.ts'), join(here, 'dist/schema.d.ts'));
console.log('built dist/index.js, dist/index.d.ts, dist/schema.d.ts');

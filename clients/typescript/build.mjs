// Builds the package into dist/ (run by `npm run build` and before `npm pack`), self-contained: an installer gets no
// dependency, because openapi-fetch is in it.
// - dist/index.js: this package and openapi-fetch as one ES module with no import of its own (plain Node, and a
//   browser page without a bundler or an import map);
// - dist/index.d.ts by tsc, with openapi-fetch's declarations beside it (dist/openapi-fetch.d.ts and the
//   openapi-typescript-helpers declarations it imports), so TypeScript finds every type in the package;
// - dist/schema.d.ts, the types generated from the OpenAPI document, as they are;
// - dist/THIRD-PARTY-LICENSES.txt: the MIT licences of the code and declarations copied in.
// esbuild, typescript and openapi-fetch are the repository's own (this folder lives in it; the root package.json pins
// them), found from here up.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
/** A package's folder (its package.json's), found as Node finds it from `from`. */
const folderOf = (name, from = require) => dirname(from.resolve(`${name}/package.json`));
const fetchFolder = folderOf('openapi-fetch');
const helpersFolder = folderOf('openapi-typescript-helpers', createRequire(join(fetchFolder, 'package.json')));
const versionOf = (folder) => JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')).version;
const fetchVersion = versionOf(fetchFolder);

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
  banner: {
    js: `// @property-api/client (MIT): built by build.mjs from src/, with openapi-fetch ${fetchVersion} (MIT, Drew Powers) included; licences in THIRD-PARTY-LICENSES.txt.`,
  },
  outfile: join(here, 'dist/index.js'),
});
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(here, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
copyFileSync(join(here, 'src/schema.d.ts'), join(here, 'dist/schema.d.ts'));

// openapi-fetch's types, in the package: its declarations import openapi-typescript-helpers', which import nothing.
const rewrite = (file, from, to) => {
  const text = readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} no longer imports ${from}: check the build.`);
  writeFileSync(file, text.replaceAll(from, to));
};
copyFileSync(join(fetchFolder, 'dist/index.d.ts'), join(here, 'dist/openapi-fetch.d.ts'));
copyFileSync(join(helpersFolder, 'dist/index.d.ts'), join(here, 'dist/openapi-typescript-helpers.d.ts'));
rewrite(join(here, 'dist/openapi-fetch.d.ts'), `from 'openapi-typescript-helpers'`, `from './openapi-typescript-helpers.js'`);
rewrite(join(here, 'dist/index.d.ts'), `from 'openapi-fetch'`, `from './openapi-fetch.js'`);

const licence = (name, folder) =>
  `${name} ${versionOf(folder)} (${JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')).license})\n\n${readFileSync(join(folder, 'LICENSE'), 'utf8').trim()}\n`;
writeFileSync(
  join(here, 'dist/THIRD-PARTY-LICENSES.txt'),
  `Code and type declarations of these packages are copied into this one (dist/index.js, dist/openapi-fetch.d.ts,\ndist/openapi-typescript-helpers.d.ts):\n\n${licence('openapi-fetch', fetchFolder)}\n${licence('openapi-typescript-helpers', helpersFolder)}`,
);
console.log('built dist/index.js, dist/index.d.ts (with openapi-fetch.d.ts), dist/schema.d.ts, dist/THIRD-PARTY-LICENSES.txt');

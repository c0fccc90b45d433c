/**
 * The figures of issue 10's closing note, for one tree: files, imports that run back up, circles, imports across
 * groups, the files of a route's story and the repeated blocks between groups. The same checker as
 * test/platform/layout.test.ts (test/support/imports.ts).
 *
 *   npx tsx bench/house.ts [ROOT] [--route 'METHOD PATH']...   (ROOT: the repository, default the current folder;
 *                                                              route: default POST /leads)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import {
  circleImports,
  circles,
  closure,
  crossGroupImports,
  describeImport,
  groupOfTarget,
  type ImportGraph,
  layers,
  longFiles,
  ownerOf,
  readImportGraph,
  upwardImports,
} from '../test/support/imports';

const args = process.argv.slice(2);
const routes: string[] = [];
let root = process.cwd();
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--route') routes.push(args[++i]!);
  else root = resolve(args[i]!);
}
if (routes.length === 0) routes.push('POST /leads');

const posix = (path: string) => path.split(sep).join('/');
const folderOf = (file: string) => `${file.split('/').slice(0, -1).join('/')}/`;
const indent = (lines: string[]) => lines.map((l) => `    ${l}`).join('\n');

function byFolder(files: string[]): string[] {
  const folders = new Map<string, string[]>();
  for (const f of files) folders.set(folderOf(f), [...(folders.get(folderOf(f)) ?? []), f]);
  return [...folders]
    .sort()
    .map(([folder, fs]) => `${folder} (${fs.length}): ${fs.map((f) => f.slice(folder.length)).join(', ')}`);
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? e.name === 'node_modules'
        ? []
        : walk(join(dir, e.name))
      : /\.tsx?$/.test(e.name)
        ? [join(dir, e.name)]
        : [],
  );
}

/** String literals and templates of a file (a template's placeholders as `${}`). */
function literalsOf(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) found.push(node.text);
    else if (ts.isTemplateExpression(node))
      found.push(node.head.text + node.templateSpans.map((s) => `\${}${s.literal.text}`).join(''));
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Files under functions/ with an object literal `{ method: '<method>', path: '<path>' }` (a route declaration). */
function declaringFiles(graph: ImportGraph, method: string, path: string): string[] {
  return graph.files.filter((file) => {
    if (!file.startsWith('functions/')) return false;
    const sf = ts.createSourceFile(file, readFileSync(join(graph.root, file), 'utf8'), ts.ScriptTarget.Latest, true);
    let declares = false;
    const text = (o: ts.ObjectLiteralExpression, name: string) => {
      const p = o.properties.find((q) => ts.isPropertyAssignment(q) && q.name.getText(sf) === name) as
        | ts.PropertyAssignment
        | undefined;
      return p && ts.isStringLiteralLike(p.initializer) ? p.initializer.text : undefined;
    };
    const visit = (node: ts.Node) => {
      if (ts.isObjectLiteralExpression(node) && text(node, 'path') === path && text(node, 'method')?.toUpperCase() === method) {
        declares = true;
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    return declares;
  });
}

/** Test files with a literal that requests the path (any method): `/leads`, `/api/v1/leads?…`, `/leads/${id}`. */
function requestingTests(root: string, path: string): string[] {
  const escaped = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/?#]+');
  const pattern = new RegExp(`^(?:https?://[^/]+)?(?:/api/v1|/admin/v1)?${escaped}(?:[?#].*)?$`);
  return walk(join(root, 'test'))
    .filter((file) => literalsOf(file).some((l) => pattern.test(l)))
    .map((file) => posix(relative(root, file)))
    .sort();
}

function routeStory(graph: ImportGraph, route: string): string {
  const [method, path] = route.trim().split(/\s+/) as [string, string];
  const declaring = declaringFiles(graph, method.toUpperCase(), path);
  if (declaring.length === 0) return `  ${route}: no file under functions/ declares it`;
  const reached = closure(graph, declaring);
  const lib = reached.filter((f) => f.startsWith('lib/'));
  const own = reached.filter((f) => !f.startsWith('lib/'));
  const tests = requestingTests(graph.root, path);
  const folders = (files: string[]) => new Set(files.map(folderOf)).size;
  const group = ownerOf(declaring[0]!);
  const ownGroup = own.filter((f) => groupOfTarget(f) === group);
  const shared = own.filter((f) => groupOfTarget(f) === null);
  const others = own.filter((f) => ![...ownGroup, ...shared].includes(f));
  return [
    `  ${route}: declared in ${declaring.join(', ')}`,
    `   source files outside lib/ (the declaring file and all it imports): ${own.length} in ${folders(own)} folders`,
    indent(byFolder(own)),
    `   of which: ${group}'s own ${ownGroup.length}, other groups' ${others.length}, shared (schema/common/, schema/platform/, schema/*.ts, functions/*.ts) ${shared.length}`,
    `   lib/ files: ${lib.length} in ${folders(lib)} folders`,
    indent(byFolder(lib)),
    `   test files with a literal requesting ${path} (any method): ${tests.length} in ${folders(tests)} folders`,
    indent(byFolder(tests)),
    `   story: ${own.length} source files in ${folders(own)} folders + ${tests.length} test files in ${folders(tests)} folders (+ ${lib.length} lib/ files)`,
  ]
    .filter((l) => l !== '')
    .join('\n');
}

const excluded = ['test/', 'bench/', 'examples/', 'migrations/'];

/** `duplicates --most 200`, with the pairs between two groups (functions/<g> ~ functions/<h>, schema/<g> ~ schema/<h>). */
function duplicatePairs(root: string): string {
  let out: string;
  try {
    out = execFileSync('duplicates', ['--repo', root, '--most', '200', '--seconds', '300'], { encoding: 'utf8' });
  } catch (e) {
    return `  duplicates did not run: ${(e as Error).message}`;
  }
  const lines = out.trim().split('\n');
  const rows = lines.flatMap((line) => {
    const m = /^D\d+ (\S+):(\d+-\d+) ~ (\S+):(\d+-\d+)(.*)$/.exec(line);
    return m ? [{ line, a: m[1]!, b: m[3]! }] : [];
  });
  const kept = rows.filter((r) => !excluded.some((x) => r.a.startsWith(x) || r.b.startsWith(x)));
  const between = kept.filter((r) => {
    const [ga, gb] = [ownerOf(r.a), ownerOf(r.b)];
    return ga !== null && gb !== null && ga !== gb && r.a.split('/')[0] === r.b.split('/')[0];
  });
  const notes = lines.filter((l) => !/^D\d+ /.test(l));
  return [
    `  duplicates --most 200: ${notes.join(' | ')}`,
    `  rows listed: ${rows.length}; with neither side under ${excluded.join(', ')}: ${kept.length}`,
    `  pairs between two groups (functions/<g> ~ functions/<h>, schema/<g> ~ schema/<h>; schema/platform is the admin's): ${between.length}`,
    indent(between.map((r) => r.line)),
  ]
    .filter((l) => l !== '')
    .join('\n');
}

function commitOf(dir: string): string {
  try {
    const stdio: ['ignore', 'pipe', 'ignore'] = ['ignore', 'pipe', 'ignore'];
    return execFileSync('git', ['-C', dir, 'log', '-1', '--format=%h %s'], { encoding: 'utf8', stdio }).trim();
  } catch {
    return 'not a git checkout';
  }
}

const graph = readImportGraph(root);
const perLayer = layers.map((l) => `${l}/ ${graph.files.filter((f) => f.startsWith(`${l}/`)).length}`).join(', ');
const upward = upwardImports(graph);
const found = circles(graph);
const across = crossGroupImports(graph);
const long = longFiles(graph);

console.log(
  [
    `house: ${root} (${commitOf(root)})`,
    `files: ${graph.files.length} TypeScript files (${perLayer}); groups (folders of functions/): ${graph.groups.join(', ')}`,
    `relative imports: ${graph.imports.length} (${graph.imports.filter((i) => i.typeOnly).length} type only), unresolved: ${graph.unresolved.length}`,
    `imports that run back up (lower layer -> higher): ${upward.length}`,
    indent(upward.map(describeImport)),
    `circles: ${found.length}${found.length ? ` (sizes ${found.map((c) => c.length).join(', ')})` : ''}`,
    indent(found.map((c) => `${c.length} files: ${c.join(', ')}`)),
    `  imports holding them: ${circleImports(graph).length}`,
    indent(circleImports(graph).map(describeImport)),
    `cross-group imports: ${across.length}`,
    indent(across.map((i) => `${describeImport(i)}: ${i.reason}`)),
    `files over 400 lines: ${long.length}`,
    indent(long.map((f) => `${f.file}: ${f.lines}`)),
    'files per route story:',
    ...routes.map((r) => routeStory(graph, r)),
    'duplicate pairs:',
    duplicatePairs(root),
  ]
    .filter((l) => l !== '')
    .join('\n'),
);

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import ts from 'typescript';

/**
 * The import graph of the house (functions/ → lib/ → schema/), read with the TypeScript compiler: every relative
 * import, type-only ones and `export … from` included, resolved as tsc resolves it. The layout test and
 * bench/house.ts both judge the tree from it, and the test proves the checks on small trees of its own.
 */

/** The layers, lowest first: a file may import its own layer or a lower one. */
export const layers = ['schema', 'lib', 'functions'] as const;
export type Layer = (typeof layers)[number];

/** Files directly in functions/ that compose the groups (the only ones that may import several). */
export const compositionFiles = [
  'functions/app.ts',
  'functions/admin-api.ts',
  'functions/jobs.ts',
  'functions/lazy-app.ts',
  'functions/seed.ts',
  'functions/worker.ts',
];
/**
 * Dev-only files directly in functions/ that compose groups too: `events trigger`'s fixtures (issue 38), its table, a
 * file per family of fixtures (`functions/triggers-<family>.ts`) and their shared steps (`functions/triggers-support.ts`).
 */
export const isFixtureFile = (file: string) => /^functions\/triggers(-[a-z]+)*\.ts$/.test(file);
/** Folders of schema/ every group may import; the value is the group that owns the folder's own files, if any. */
export const sharedSchemaFolders: Record<string, string | null> = { common: null, platform: 'admin' };

export type Import = {
  /** Importing file, relative to the root, with `/`. */
  from: string;
  /** Imported file, relative to the root (`../` when outside it). */
  to: string;
  specifier: string;
  line: number;
  typeOnly: boolean;
};

export type ImportGraph = {
  root: string;
  /** Every file read (functions/, lib/, schema/), sorted. */
  files: string[];
  /** Lines per file read. */
  lines: Map<string, number>;
  /** Relative imports that resolved to a file. */
  imports: Import[];
  /** Relative imports that resolved to nothing (tsc reports them too). */
  unresolved: Import[];
  /** The route groups: the folders of functions/, sorted. */
  groups: string[];
};

const sourceFile = /\.(ts|tsx|mts|cts)$/;

const posix = (path: string) => path.split(sep).join('/');

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : walk(full);
    return entry.isFile() && sourceFile.test(entry.name) ? [full] : [];
  });
}

/** Lines as `wc -l` counts them, plus a last line without its newline. */
export function countLines(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function compilerOptions(root: string): ts.CompilerOptions {
  const fallback: ts.CompilerOptions = {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    resolveJsonModule: true,
  };
  const configPath = join(root, 'tsconfig.json');
  if (!existsSync(configPath)) return fallback;
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  if (read.error) return fallback;
  return { ...fallback, ...ts.parseJsonConfigFileContent(read.config, ts.sys, root).options };
}

type Found = { specifier: string; line: number; typeOnly: boolean };

/**
 * Every module specifier a file names: imports, re-exports, `import x = require()`, `import()` and `import('…').T`.
 * A module loaded by a name that is not a string literal (`import(name)`, any `require(…)` call) is found with the
 * specifier `''`: nothing resolves it, and a reader that must know every module a file reaches can tell it is there.
 */
export function specifiersOf(fileName: string, text: string): Found[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: Found[] = [];
  const push = (node: ts.Node, specifier: string, typeOnly: boolean) =>
    found.push({ specifier, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, typeOnly });
  const add = (node: ts.Node, literal: ts.Node | undefined, typeOnly: boolean) => {
    if (literal && ts.isStringLiteralLike(literal)) push(node, literal.text, typeOnly);
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const onlyTypeSpecifiers =
        !!clause &&
        !clause.name &&
        !!bindings &&
        ts.isNamedImports(bindings) &&
        bindings.elements.length > 0 &&
        bindings.elements.every((e) => e.isTypeOnly);
      add(node, node.moduleSpecifier, !!clause?.isTypeOnly || onlyTypeSpecifiers);
    } else if (ts.isExportDeclaration(node)) {
      add(node, node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node, node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const name = node.arguments[0];
      if (name && ts.isStringLiteralLike(name)) add(node, name, false);
      else push(node, '', false);
    } else if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'require') {
      push(node, '', false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, node.argument.literal, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Reads functions/, lib/ and schema/ below `root` and resolves their relative imports. */
export function readImportGraph(root: string): ImportGraph {
  const options = compilerOptions(root);
  const cache = ts.createModuleResolutionCache(root, (f) => f, options);
  const absolute = layers.flatMap((layer) => walk(join(root, layer))).sort();
  const files = absolute.map((f) => posix(relative(root, f)));
  const lines = new Map<string, number>();
  const imports: Import[] = [];
  const unresolved: Import[] = [];
  absolute.forEach((file, i) => {
    const from = files[i]!;
    const text = readFileSync(file, 'utf8');
    lines.set(from, countLines(text));
    for (const { specifier, line, typeOnly } of specifiersOf(file, text)) {
      if (!specifier.startsWith('.')) continue;
      const resolved = ts.resolveModuleName(specifier, file, options, ts.sys, cache).resolvedModule;
      if (resolved) imports.push({ from, to: posix(relative(root, resolved.resolvedFileName)), specifier, line, typeOnly });
      else unresolved.push({ from, to: posix(relative(root, join(dirname(file), specifier))), specifier, line, typeOnly });
    }
  });
  const functionsDir = join(root, 'functions');
  const groups = existsSync(functionsDir)
    ? readdirSync(functionsDir)
        .filter((name) => statSync(join(functionsDir, name)).isDirectory())
        .sort()
    : [];
  return { root, files, lines, imports, unresolved, groups };
}

export function layerOf(path: string): Layer | null {
  const top = path.split('/')[0];
  return (layers as readonly string[]).includes(top!) ? (top as Layer) : null;
}

/** The group whose own file this is: functions/<g>/… and schema/<g>/… (schema/platform/ is the admin's). */
export function ownerOf(path: string): string | null {
  const [top, folder, ...rest] = path.split('/');
  if (rest.length === 0 || (top !== 'functions' && top !== 'schema')) return null;
  if (top === 'schema' && folder! in sharedSchemaFolders) return sharedSchemaFolders[folder!] ?? null;
  return folder!;
}

/** The group an import of this file reaches into; null for lib/, shared schema and top-level files. */
export function groupOfTarget(path: string): string | null {
  const [top, folder, ...rest] = path.split('/');
  if (rest.length === 0 || (top !== 'functions' && top !== 'schema')) return null;
  if (top === 'schema' && folder! in sharedSchemaFolders) return null;
  return folder!;
}

export const describeImport = (i: Import) =>
  `${i.from}:${i.line} -> ${i.to}${i.typeOnly ? ' (type only)' : ''} ('${i.specifier}')`;

/** Strongly connected components of more than one file, and files importing themselves (Tarjan). */
export function circles(graph: ImportGraph): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of graph.imports) {
    if (!next.has(from)) next.set(from, new Set());
    next.get(from)!.add(to);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const connect = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || next.get(v)?.has(v)) found.push(component.sort());
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) connect(v);
  return found.sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));
}

/** The imports that hold a circle together: both ends in the same circle. */
export function circleImports(graph: ImportGraph): Import[] {
  const circleOf = new Map<string, number>();
  circles(graph).forEach((component, n) => {
    for (const file of component) circleOf.set(file, n);
  });
  return graph.imports.filter((i) => circleOf.has(i.from) && circleOf.get(i.from) === circleOf.get(i.to));
}

/** Imports from a lower layer to a higher one (schema → lib or functions, lib → functions). */
export function upwardImports(graph: ImportGraph): Import[] {
  return graph.imports.filter((i) => {
    const from = layerOf(i.from);
    const to = layerOf(i.to);
    return from !== null && to !== null && layers.indexOf(to) > layers.indexOf(from);
  });
}

export type CrossGroupImport = Import & { reason: string };

/**
 * Imports between groups: a group's file (functions/<g>/, schema/<g>/) reaching into another group's
 * functions/<h>/ or schema/<h>/; and a file directly in functions/ that is not a composition file reaching
 * into more than one group.
 */
export function crossGroupImports(graph: ImportGraph): CrossGroupImport[] {
  const found: CrossGroupImport[] = [];
  for (const i of graph.imports) {
    const owner = ownerOf(i.from);
    const target = groupOfTarget(i.to);
    if (owner !== null && target !== null && owner !== target) found.push({ ...i, reason: `${owner} imports ${target}` });
  }
  const topLevel = graph.files.filter((f) => /^functions\/[^/]+$/.test(f) && !compositionFiles.includes(f) && !isFixtureFile(f));
  for (const file of topLevel) {
    const reaching = graph.imports.filter((i) => i.from === file && groupOfTarget(i.to) !== null);
    const groups = [...new Set(reaching.map((i) => groupOfTarget(i.to)!))].sort();
    if (groups.length > 1) {
      const reason = `${file} is not a composition file (${compositionFiles.join(', ')}) but imports ${groups.join(', ')}`;
      found.push(...reaching.map((i) => ({ ...i, reason })));
    }
  }
  return found;
}

/** Files longer than `max` lines. */
export function longFiles(graph: ImportGraph, max = 400): Array<{ file: string; lines: number }> {
  return graph.files.map((file) => ({ file, lines: graph.lines.get(file)! })).filter((f) => f.lines > max);
}

/** Every file `start` reaches through imports, `start` included. */
export function closure(graph: ImportGraph, start: string[]): string[] {
  const seen = new Set(start);
  const queue = [...start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const i of graph.imports) {
      if (i.from === file && !seen.has(i.to)) {
        seen.add(i.to);
        queue.push(i.to);
      }
    }
  }
  return [...seen].sort();
}

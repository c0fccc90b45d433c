import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import ts from 'typescript';
import type { ImportGraph } from './imports';

/**
 * The one shape of the house (issue 22), read with the TypeScript compiler from the files of an import graph: route
 * files only declare and delegate, every route of a group is declared (defineRoute) in a route file, the real clock is
 * read in one place, no group keeps its own route helper, and every handler is named. The layout test judges the tree with these and proves each on small trees of its own.
 */

export type Finding = { file: string; line: number; what: string };

export const describeFinding = (f: Finding) => `${f.file}:${f.line} ${f.what}`;

/** A route file: `<resource>.routes.ts` or a group's `admin.ts` (and every file of the operator's group). */
export function isRouteFile(file: string): boolean {
  return /^functions\/[^/]+\/[^/]+\.routes\.ts$/.test(file) || /^functions\/[^/]+\/admin\.ts$/.test(file);
}

/** Query builder entry points a route file may not call: queries live in `<resource>.ts`. */
export const queryCalls = ['selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto', 'selectNoFrom'];

/** The only file that reads the real clock. */
export const clockFile = 'lib/clock.ts';

function parse(graph: ImportGraph, file: string): ts.SourceFile {
  const text = readFileSync(join(graph.root, file), 'utf8');
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
}

function visit(node: ts.Node, each: (node: ts.Node) => void): void {
  each(node);
  ts.forEachChild(node, (child) => visit(child, each));
}

const lineOf = (sf: ts.SourceFile, node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;

/** Calls of the query builder (`.selectFrom(…)` and the like) and `` sql`…` `` templates in route files. */
export function queriesInRouteFiles(graph: ImportGraph): Finding[] {
  const found: Finding[] = [];
  for (const file of graph.files.filter(isRouteFile)) {
    const sf = parse(graph, file);
    visit(sf, (node) => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
        const name = node.expression.name.text;
        if (queryCalls.includes(name)) found.push({ file, line: lineOf(sf, node), what: `.${name}()` });
      }
      if (ts.isTaggedTemplateExpression(node)) {
        const tag = node.tag;
        const name = ts.isIdentifier(tag) ? tag.text : ts.isPropertyAccessExpression(tag) ? tag.name.text : '';
        if (name === 'sql') found.push({ file, line: lineOf(sf, node), what: 'sql`…`' });
      }
    });
  }
  return found;
}

/** The platform's calls that declare a route (lib/access.ts, lib/admin-route.ts, lib/pages.ts). */
export const routeDeclarers = ['defineRoute', 'adminRoute', 'tokenPageRoute'];

/** Hono's methods that register a route on a path (`app.get('/path', handler)`). */
const honoMethods = ['get', 'post', 'put', 'patch', 'delete', 'options', 'all'];

const hasProperty = (node: ts.ObjectLiteralExpression, name: string) =>
  node.properties.some((p) => p.name !== undefined && ts.isIdentifier(p.name) && p.name.text === name);

/** What a call declares or registers, if it is a route: a declaration, an `.openapi(…)` or a plain Hono route. */
function routeCall(node: ts.Node): 'declared' | 'registered' | 'plain' | undefined {
  if (!ts.isCallExpression(node)) return undefined;
  const callee = node.expression;
  if (ts.isIdentifier(callee) && routeDeclarers.includes(callee.text)) return 'declared';
  // A group's helper (`leasesRoute('read:leases', { method, path, … })`): a route's declaration is an object of both.
  if (node.arguments.some((a) => ts.isObjectLiteralExpression(a) && hasProperty(a, 'method') && hasProperty(a, 'path'))) {
    return 'declared';
  }
  if (!ts.isPropertyAccessExpression(callee)) return undefined;
  if (callee.name.text === 'openapi' && node.arguments.length >= 2) return 'registered';
  const [path] = node.arguments;
  const literal = path && (ts.isStringLiteral(path) || ts.isNoSubstitutionTemplateLiteral(path) || ts.isTemplateExpression(path));
  const text = !literal ? '' : ts.isTemplateExpression(path) ? path.head.text : path.text;
  // A path and at least one handler (a map's `.get('/…')` is no route).
  const handled = node.arguments.length >= 2;
  if (honoMethods.includes(callee.name.text) && handled && literal && text.startsWith('/')) return 'plain';
  return undefined;
}

const routeCallWords = {
  declared: 'a route declared',
  registered: 'a route registered (.openapi)',
  plain: 'a plain Hono route',
} as const;

/**
 * Any file of functions/ that declares or registers a route is a route file (`<resource>.routes.ts` or a group's
 * `admin.ts`), so that the rules of route files (no queries) reach every route: a page's too.
 */
export function routesOutsideRouteFiles(graph: ImportGraph): Finding[] {
  const found: Finding[] = [];
  for (const file of graph.files.filter((f) => f.startsWith('functions/') && !isRouteFile(f))) {
    const sf = parse(graph, file);
    visit(sf, (node) => {
      const call = routeCall(node);
      if (call) found.push({ file, line: lineOf(sf, node), what: `${routeCallWords[call]} outside a route file` });
    });
  }
  return found;
}

/**
 * Routes of functions/ registered on a plain Hono app (`new Hono().get('/path', …)`) rather than declared with
 * `defineRoute`: no access declaration, so neither the check nor the access matrix nor the route list knows them.
 */
export function plainRoutes(graph: ImportGraph): Finding[] {
  const found: Finding[] = [];
  for (const file of graph.files.filter((f) => f.startsWith('functions/'))) {
    const sf = parse(graph, file);
    visit(sf, (node) => {
      if (routeCall(node) === 'plain')
        found.push({ file, line: lineOf(sf, node), what: 'a plain Hono route (declare it with defineRoute)' });
    });
  }
  return found;
}

/** The scripts of bin/ (TypeScript and JavaScript modules), relative to the root. */
export function binFiles(root: string): string[] {
  const dir = join(root, 'bin');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(ts|mts|cts|js|mjs|cjs)$/.test(name))
    .map((name) => `bin/${name.split(sep).join('/')}`)
    .sort();
}

/**
 * `new Date()` without arguments and `Date.now()` outside lib/clock.ts: in functions/, lib/ and schema/, and in the
 * scripts of bin/ (which take the time from lib/clock.ts too).
 */
export function clockReads(graph: ImportGraph): Finding[] {
  const found: Finding[] = [];
  for (const file of [...graph.files, ...binFiles(graph.root)].filter((f) => f !== clockFile)) {
    const sf = parse(graph, file);
    visit(sf, (node) => {
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'Date') {
        if ((node.arguments?.length ?? 0) === 0) found.push({ file, line: lineOf(sf, node), what: 'new Date()' });
      }
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        ts.isIdentifier(node.expression.expression) &&
        node.expression.expression.text === 'Date' &&
        node.expression.name.text === 'now'
      ) {
        found.push({ file, line: lineOf(sf, node), what: 'Date.now()' });
      }
    });
  }
  return found;
}

/** A group's own route helper: a `route.ts` in a group's folder (the one helper is lib/routes.ts). */
export function groupRouteHelpers(graph: ImportGraph): Finding[] {
  return graph.files
    .filter((file) => /^functions\/[^/]+\/route\.ts$/.test(file))
    .map((file) => ({ file, line: 1, what: 'a group route helper (use lib/routes.ts)' }));
}

/** Handlers registered as anonymous functions (`.openapi(route, async (c) => …)`): stack traces cannot name them. */
export function anonymousHandlers(graph: ImportGraph): Finding[] {
  const found: Finding[] = [];
  for (const file of graph.files.filter((f) => f.startsWith('functions/'))) {
    const sf = parse(graph, file);
    visit(sf, (node) => {
      if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return;
      if (node.expression.name.text !== 'openapi' || node.arguments.length < 2) return;
      const handler = node.arguments[1];
      if (handler && (ts.isArrowFunction(handler) || (ts.isFunctionExpression(handler) && !handler.name))) {
        found.push({ file, line: lineOf(sf, handler), what: 'an anonymous handler' });
      }
    });
  }
  return found;
}

/**
 * The files that may send a request themselves; everything else fetches through `guardedFetch`
 * (lib/outbound/guard.ts). Each with its reason.
 */
export const outboundFetchFiles: Record<string, string> = {
  'lib/outbound/guard.ts': 'the guard: checks the URL, then calls the platform fetch (Workers: the global one)',
  'lib/node/pinned-fetch.ts': "Node's platform fetch: undici connecting to the checked addresses only",
  'lib/spam-check.ts': "Turnstile's siteverify at the operator's TURNSTILE_SITEVERIFY_URL, not a company's URL",
  'lib/payments/index.ts': "payment providers' APIs at the operator's STRIPE_API_BASE (configuration), not a company's URL",
};

/** Objects that carry the platform fetch (`services.webhooks`, a `runtime`, an `outbound`): calling it skips the guard. */
const platformFetchHolders = ['webhooks', 'runtime', 'outbound'];
const globalObjects = ['globalThis', 'self', 'window'];

/** Whether this `fetch` identifier is the global function used as a value (called, passed, stored), not a name. */
function isGlobalFetch(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) {
    return ts.isIdentifier(parent.expression) && globalObjects.includes(parent.expression.text);
  }
  const named = (p: ts.Node): p is ts.Node & { name: ts.Node } => 'name' in p && (p as { name?: ts.Node }).name === node;
  if (named(parent) && !ts.isShorthandPropertyAssignment(parent)) return false;
  if (ts.isImportSpecifier(parent) || ts.isExportSpecifier(parent) || ts.isTypeQueryNode(parent)) return false;
  return !ts.isQualifiedName(parent) && !ts.isTypeReferenceNode(parent);
}

/**
 * Requests sent around the outbound guard, outside {@link outboundFetchFiles}: the global `fetch` (called, passed on
 * or stored: `fetch(…)`, `globalThis.fetch`, `{ fetch }`) and the platform fetch called directly
 * (`services.webhooks.fetch(…)`, `runtime.fetch(…)`, `outbound.fetch(…)`). Names are not uses: a method or property
 * called `fetch` (`app.fetch(request)` of an inbound app), `typeof fetch`.
 */
export function outboundFetches(graph: ImportGraph): Finding[] {
  const found: Finding[] = [];
  for (const file of graph.files.filter((f) => !(f in outboundFetchFiles))) {
    const sf = parse(graph, file);
    visit(sf, (node) => {
      if (ts.isIdentifier(node) && node.text === 'fetch' && isGlobalFetch(node)) {
        const holder = ts.isPropertyAccessExpression(node.parent) ? `${node.parent.expression.getText(sf)}.` : '';
        found.push({ file, line: lineOf(sf, node), what: `the global ${holder}fetch (use guardedFetch)` });
      }
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'fetch') {
        const receiver = node.expression.expression;
        const name = ts.isIdentifier(receiver)
          ? receiver.text
          : ts.isPropertyAccessExpression(receiver)
            ? receiver.name.text
            : '';
        if (platformFetchHolders.includes(name)) {
          found.push({ file, line: lineOf(sf, node), what: `${name}.fetch() around the guard (use guardedFetch)` });
        }
      }
    });
  }
  return found;
}

/** The one home of audit rows (lib/audit.ts: writeAudit, auditCte and the read audits). */
export const auditFile = 'lib/audit.ts';

const auditInserts = [/\binsert\s+into\s+audit_log\b/i, /\.insertInto\(\s*['"`]audit_log['"`]/];

/** An audit row written by a file of its own (`insert into audit_log` in SQL, `.insertInto('audit_log')`): a second way. */
export function auditWritesElsewhere(graph: ImportGraph): Finding[] {
  const found: Finding[] = [];
  for (const file of graph.files.filter((f) => f !== auditFile)) {
    const lines = readFileSync(join(graph.root, file), 'utf8').split('\n');
    lines.forEach((text, i) => {
      if (auditInserts.some((pattern) => pattern.test(text))) {
        found.push({ file, line: i + 1, what: 'an audit row written by hand (use lib/audit.ts)' });
      }
    });
  }
  return found;
}

/** The one home of status moves (`statusMachine`, `checkMove`, `checkTakes`) and of their refusal. */
export const transitionsFile = 'lib/transitions.ts';

/** The name of every status table: `<noun>Machine` (`leadMachine`, `ownerChargeMachine`). */
const machineName = /^[a-z][A-Za-z0-9]*Machine$/;

/**
 * Status moves outside lib/transitions.ts (issue 33): `invalid_transition` as a value anywhere else (thrown by hand
 * with `new ApiError`, given to a helper, written as a field error's code), so the refusal would not name the allowed
 * next statuses; and a status table declared with `statusMachine` under another name than `<noun>Machine`. Declaring
 * the code (lib/errors.ts' keys) and describing it (text that merely names it) are no findings.
 */
export function transitionsElsewhere(graph: ImportGraph): Finding[] {
  const found: Finding[] = [];
  for (const file of graph.files.filter((f) => f !== transitionsFile)) {
    const sf = parse(graph, file);
    visit(sf, (node) => {
      if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && node.text === 'invalid_transition') {
        const parent = node.parent;
        const isKey = (ts.isPropertyAssignment(parent) || ts.isPropertySignature(parent)) && parent.name === node;
        if (!isKey && !ts.isLiteralTypeNode(parent)) {
          found.push({ file, line: lineOf(sf, node), what: 'invalid_transition by hand (use lib/transitions.ts)' });
        }
      }
      if (ts.isVariableDeclaration(node) && node.initializer && ts.isCallExpression(node.initializer)) {
        const callee = node.initializer.expression;
        if (ts.isIdentifier(callee) && callee.text === 'statusMachine' && ts.isIdentifier(node.name)) {
          if (!machineName.test(node.name.text)) {
            found.push({ file, line: lineOf(sf, node), what: `a status table named ${node.name.text} (name it <noun>Machine)` });
          }
        }
      }
    });
  }
  return found;
}

/** The one handler type's home: `Handler<typeof route>` in lib/routes.ts. */
export const handlerTypeFile = 'lib/routes.ts';

/**
 * A second handler type: `RouteHandler` of @hono/zod-openapi imported anywhere but lib/routes.ts (whose `Handler`
 * names the environment once), so every handler is typed `Handler<typeof route>` (issue 33).
 */
export function otherHandlerTypes(graph: ImportGraph): Finding[] {
  const found: Finding[] = [];
  for (const file of graph.files.filter((f) => f !== handlerTypeFile)) {
    const sf = parse(graph, file);
    for (const statement of sf.statements) {
      if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
      if (statement.moduleSpecifier.text !== '@hono/zod-openapi') continue;
      const bindings = statement.importClause?.namedBindings;
      if (!bindings || !ts.isNamedImports(bindings)) continue;
      for (const element of bindings.elements) {
        if ((element.propertyName ?? element.name).text === 'RouteHandler') {
          found.push({
            file,
            line: lineOf(sf, element),
            what: 'RouteHandler (type handlers Handler<typeof route>, lib/routes.ts)',
          });
        }
      }
    }
  }
  return found;
}

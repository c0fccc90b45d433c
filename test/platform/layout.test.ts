import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  circleImports,
  circles,
  crossGroupImports,
  describeImport,
  type ImportGraph,
  longFiles,
  readImportGraph,
  upwardImports,
} from '../support/imports';
import {
  anonymousHandlers,
  auditWritesElsewhere,
  clockReads,
  describeFinding,
  type Finding,
  groupRouteHelpers,
  otherHandlerTypes,
  outboundFetches,
  outboundFetchFiles,
  plainRoutes,
  queriesInRouteFiles,
  routesOutsideRouteFiles,
  transitionsElsewhere,
} from '../support/shape';
import { amountFormattingElsewhere, moneyFormattingHomes, notAmounts } from '../support/money-shape';
import { locksElsewhere, pendingFiles, stampsElsewhere, tableLockFiles } from '../support/one-way';

/**
 * The house's layout (issue 10): no import circles, layers point down only (functions/ → lib/ → schema/), groups
 * stay apart (a group imports only lib/, schema/common/, schema/platform/, schema/db.ts and its own schema/<group>/
 * besides its own folder; only functions/app.ts, jobs.ts, seed.ts and worker.ts compose groups), and no source file
 * is longer than 400 lines. The groups are the folders of functions/, so a new group is covered as it lands.
 */

const repository = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const findings = (graph: ImportGraph) => ({
  circles: circleImports(graph).map(describeImport),
  upward: upwardImports(graph).map(describeImport),
  crossGroup: crossGroupImports(graph).map((i) => `${describeImport(i)}: ${i.reason}`),
  long: longFiles(graph).map((f) => `${f.file}: ${f.lines} lines`),
});

const listed = (what: string, offences: string[]) => `${offences.length} ${what}:\n  ${offences.join('\n  ')}\n`;

describe('the layout of functions/, lib/ and schema/', () => {
  const graph = readImportGraph(repository);
  const found = findings(graph);

  it('reads the tree', () => {
    expect(graph.files.length).toBeGreaterThan(50);
    expect(graph.groups.length).toBeGreaterThan(1);
  });

  it('has no import circles (files importing each other through any path, type-only imports included)', () => {
    const sizes = circles(graph).map((c) => `${c.length} files: ${c.join(', ')}`);
    expect(found.circles, `${listed('circles', sizes)}${listed('imports holding them', found.circles)}`).toEqual([]);
  });

  it('points down only: schema/ imports nothing from lib/ or functions/, lib/ nothing from functions/', () => {
    expect(found.upward, listed('imports from a lower layer to a higher one', found.upward)).toEqual([]);
  });

  it(`keeps the groups apart (${graph.groups.join(', ')})`, () => {
    expect(found.crossGroup, listed('imports across groups', found.crossGroup)).toEqual([]);
  });

  it('keeps every source file at 400 lines or fewer', () => {
    expect(found.long, listed('files over 400 lines', found.long)).toEqual([]);
  });

  // Issue 22's one shape, held on the project's own tree (each check is proven on fixture trees below).
  it('keeps queries out of route files (*.routes.ts and a group’s admin.ts declare and delegate)', () => {
    const queries = queriesInRouteFiles(graph).map(describeFinding);
    expect(queries, listed('query builder calls in route files', queries)).toEqual([]);
  });

  it('declares every route of a group with defineRoute, in a route file (a page at a token included)', () => {
    const outside = routesOutsideRouteFiles(graph).map(describeFinding);
    expect(outside, listed('routes outside route files', outside)).toEqual([]);
    const plain = plainRoutes(graph).map(describeFinding);
    expect(plain, listed('plain Hono routes', plain)).toEqual([]);
  });

  it('reads the real clock only in lib/clock.ts (bin/ included)', () => {
    const reads = clockReads(graph).map(describeFinding);
    expect(reads, listed('clock reads outside lib/clock.ts', reads)).toEqual([]);
  });

  it('has one route helper (lib/routes.ts), no group of its own', () => {
    const helpers = groupRouteHelpers(graph).map(describeFinding);
    expect(helpers, listed('group route helpers', helpers)).toEqual([]);
  });

  it('names every handler (stack traces name them)', () => {
    const anonymous = anonymousHandlers(graph).map(describeFinding);
    expect(anonymous, listed('anonymous handlers', anonymous)).toEqual([]);
  });

  it('types every handler one way: Handler<typeof route> of lib/routes.ts (issue 33)', () => {
    const types = otherHandlerTypes(graph).map(describeFinding);
    expect(types, listed('handlers typed another way', types)).toEqual([]);
  });

  it('moves every status through lib/transitions.ts: no invalid_transition by hand, every table a <noun>Machine (issue 33)', () => {
    const moves = transitionsElsewhere(graph).map(describeFinding);
    expect(moves, listed('status moves outside lib/transitions.ts', moves)).toEqual([]);
  });

  it('fetches only through the outbound guard (lib/outbound/guard.ts guardedFetch)', () => {
    const around = outboundFetches(graph).map(describeFinding);
    expect(around, listed('requests sent around the guard', around)).toEqual([]);
    for (const file of Object.keys(outboundFetchFiles)) expect(graph.files, file).toContain(file);
  });

  it('writes audit rows only through lib/audit.ts (one way, issue 33)', () => {
    const audits = auditWritesElsewhere(graph).map(describeFinding);
    expect(audits, listed('audit rows written by hand', audits)).toEqual([]);
  });

  it('formats and rounds amounts only in lib/money.ts (one way, issue 33)', () => {
    const formatted = amountFormattingElsewhere(graph).map(describeFinding);
    expect(formatted, listed('amounts formatted outside lib/money.ts', formatted)).toEqual([]);
    for (const file of [...moneyFormattingHomes, ...Object.keys(notAmounts)]) expect(graph.files, file).toContain(file);
  });

  // Issue 33's one way for locks and updated_at. A pending file (another branch fixes it) is not counted, but must
  // still find something: once it finds nothing, its entry in pendingFiles goes.
  const locks = locksElsewhere(graph);
  const stamps = stampsElsewhere(graph);
  const counted = (found: Finding[]) => found.filter((f) => !(f.file in pendingFiles)).map(describeFinding);

  it('locks the calendar only in lib/calendar.ts, a table or by advisory lock only in the files named for it', () => {
    expect(counted(locks), listed('locks outside their homes', counted(locks))).toEqual([]);
    for (const file of Object.keys(tableLockFiles)) expect(graph.files, file).toContain(file);
  });

  it('stamps updated_at only with lib/clock.ts stamp (the database’s clock, docs/api-reference.md)', () => {
    expect(counted(stamps), listed('updated_at written another way', counted(stamps))).toEqual([]);
  });

  it('lists as pending only files that still break a rule (pendingFiles in test/support/one-way.ts)', () => {
    const breaking = new Set([...locks, ...stamps].map((f) => f.file));
    for (const file of Object.keys(pendingFiles)) expect(breaking, `${file} keeps the rules: remove it`).toContain(file);
  });
});

describe('the layout checker, on trees of its own', () => {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  const tree = (files: Record<string, string>): ImportGraph => {
    const root = mkdtempSync(join(tmpdir(), 'layout-'));
    made.push(root);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return readImportGraph(root);
  };

  /** A house that keeps every rule: two groups, shared schema, the admin's schema/platform, a composition file. */
  const clean: Record<string, string> = {
    'schema/db.ts': "import type { Row } from './alpha/rows';\nexport type Db = { rows: Row };\n",
    'schema/common/api.ts': 'export const page = 1;\n',
    'schema/platform/events.ts': "import { page } from '../common/api';\nexport const events = page;\n",
    'schema/alpha/rows.ts': "import { page } from '../common/api';\nexport type Row = { page: typeof page };\n",
    'schema/beta/items.ts': "import type { Db } from '../db';\nexport type Item = Db;\n",
    'lib/app.ts': "import type { Db } from '../schema/db';\nexport const app = (db?: Db) => db;\n",
    'functions/alpha/rows.routes.ts':
      "import { app } from '../../lib/app';\nimport type { Row } from '../../schema/alpha/rows';\nimport { events } from '../../schema/platform/events';\nexport { rowOf } from './rows';\nexport const rows = (r: Row) => [app, events, r];\n",
    'functions/alpha/rows.ts': "import type { Row } from '../../schema/alpha/rows';\nexport const rowOf = (r: Row) => r;\n",
    'functions/beta/items.routes.ts':
      "import type { Item } from '../../schema/beta/items';\nexport const items = (i: Item) => i;\n",
    'functions/admin/index.ts': "import { events } from '../../schema/platform/events';\nexport const admin = events;\n",
    'functions/app.ts':
      "import { rows } from './alpha/rows.routes';\nimport { items } from './beta/items.routes';\nimport { admin } from './admin/index';\nexport const all = [rows, items, admin];\n",
  };

  /** What a clean tree finds; each broken tree below must find only what it breaks. */
  const none = { circles: [], upward: [], crossGroup: [], long: [] };

  it('passes a clean tree', () => {
    const graph = tree(clean);
    expect(graph.groups).toEqual(['admin', 'alpha', 'beta']);
    expect(graph.imports.length).toBe(15);
    expect(graph.unresolved).toEqual([]);
    expect(findings(graph)).toEqual(none);
  });

  it('finds circles through any path, type-only imports and re-exports included, and files importing themselves', () => {
    const graph = tree({
      ...clean,
      'lib/a.ts': "import type { C } from './c';\nexport type A = C;\n",
      'lib/b.ts': "export type { A as B } from './a';\n",
      'lib/c.ts': "import { type B } from './b';\nexport type C = B | 1;\n",
      'lib/self.ts': "export const one = 1;\nexport const two = (await import('./self')).one;\n",
    });
    expect(circles(graph)).toEqual([['lib/a.ts', 'lib/b.ts', 'lib/c.ts'], ['lib/self.ts']]);
    expect(findings(graph)).toEqual({
      ...none,
      circles: [
        "lib/a.ts:1 -> lib/c.ts (type only) ('./c')",
        "lib/b.ts:1 -> lib/a.ts (type only) ('./a')",
        "lib/c.ts:1 -> lib/b.ts (type only) ('./b')",
        "lib/self.ts:2 -> lib/self.ts ('./self')",
      ],
    });
  });

  it('finds imports from a lower layer to a higher one', () => {
    const graph = tree({
      ...clean,
      'schema/common/app.ts': "import type { app } from '../../lib/app';\nexport type App = typeof app;\n",
      'schema/beta/routes.ts': "import { items } from '../../functions/beta/items.routes';\nexport type Items = typeof items;\n",
      'lib/jobs.ts': "export * from '../functions/alpha/rows';\n",
    });
    expect(findings(graph)).toEqual({
      ...none,
      upward: [
        "lib/jobs.ts:1 -> functions/alpha/rows.ts ('../functions/alpha/rows')",
        "schema/beta/routes.ts:1 -> functions/beta/items.routes.ts ('../../functions/beta/items.routes')",
        "schema/common/app.ts:1 -> lib/app.ts (type only) ('../../lib/app')",
      ],
    });
  });

  it('finds imports across groups, a new group included, and a top-level file that composes groups', () => {
    const graph = tree({
      ...clean,
      'functions/alpha/rows.ts': "import type { Item } from '../../schema/beta/items';\nexport const rowOf = (r: Item) => r;\n",
      'functions/gamma/things.ts': "export { items } from '../beta/items.routes';\n",
      'functions/admin/index.ts': "import { rows } from '../alpha/rows.routes';\nexport const admin = rows;\n",
      'schema/platform/events.ts': "import type { Row } from '../alpha/rows';\nexport const events: Row[] = [];\n",
      'schema/alpha/links.ts': "export type Link = import('../beta/items').Item;\n",
      'functions/helpers.ts':
        "import { rows } from './alpha/rows.routes';\nimport { items } from './beta/items.routes';\nexport const both = [rows, items];\n",
    });
    expect(graph.groups).toEqual(['admin', 'alpha', 'beta', 'gamma']);
    expect(findings(graph)).toEqual({
      ...none,
      crossGroup: [
        "functions/admin/index.ts:1 -> functions/alpha/rows.routes.ts ('../alpha/rows.routes'): admin imports alpha",
        "functions/alpha/rows.ts:1 -> schema/beta/items.ts (type only) ('../../schema/beta/items'): alpha imports beta",
        "functions/gamma/things.ts:1 -> functions/beta/items.routes.ts ('../beta/items.routes'): gamma imports beta",
        "schema/alpha/links.ts:1 -> schema/beta/items.ts (type only) ('../beta/items'): alpha imports beta",
        "schema/platform/events.ts:1 -> schema/alpha/rows.ts (type only) ('../alpha/rows'): admin imports alpha",
        "functions/helpers.ts:1 -> functions/alpha/rows.routes.ts ('./alpha/rows.routes'): functions/helpers.ts is not a composition file (functions/app.ts, functions/admin-api.ts, functions/jobs.ts, functions/lazy-app.ts, functions/seed.ts, functions/worker.ts) but imports alpha, beta",
        "functions/helpers.ts:2 -> functions/beta/items.routes.ts ('./beta/items.routes'): functions/helpers.ts is not a composition file (functions/app.ts, functions/admin-api.ts, functions/jobs.ts, functions/lazy-app.ts, functions/seed.ts, functions/worker.ts) but imports alpha, beta",
      ],
    });
  });

  it('finds files over 400 lines', () => {
    const graph = tree({ ...clean, 'lib/long.ts': 'export const x = 1;\n'.repeat(401), 'lib/full.ts': '\n'.repeat(400) });
    expect(findings(graph)).toEqual({ ...none, long: ['lib/long.ts: 401 lines'] });
  });
});

describe('the shape checker (issue 22), on trees of its own', () => {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  const tree = (files: Record<string, string>): ImportGraph => {
    const root = mkdtempSync(join(tmpdir(), 'shape-'));
    made.push(root);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return readImportGraph(root);
  };

  const shape = (graph: ImportGraph) => ({
    queries: queriesInRouteFiles(graph).map(describeFinding),
    outside: routesOutsideRouteFiles(graph).map(describeFinding),
    plain: plainRoutes(graph).map(describeFinding),
    clock: clockReads(graph).map(describeFinding),
    helpers: groupRouteHelpers(graph).map(describeFinding),
    anonymous: anonymousHandlers(graph).map(describeFinding),
    fetches: outboundFetches(graph).map(describeFinding),
    audit: auditWritesElsewhere(graph).map(describeFinding),
    transitions: transitionsElsewhere(graph).map(describeFinding),
    handlerTypes: otherHandlerTypes(graph).map(describeFinding),
  });
  const none = {
    queries: [],
    outside: [],
    plain: [],
    clock: [],
    helpers: [],
    anonymous: [],
    fetches: [],
    audit: [],
    transitions: [],
    handlerTypes: [],
  };

  /**
   * A group in the one shape: its route file declares through lib/routes.ts and delegates to named handlers (a const
   * arrow and a named function), its queries and its time arithmetic live in `<resource>.ts`, and only lib/clock.ts
   * reads the real clock.
   */
  const clean: Record<string, string> = {
    'lib/clock.ts': 'export const systemClock = () => new Date();\nexport const systemMillis = () => Date.now();\n',
    // The one handler type (lib/routes.ts) over @hono/zod-openapi's.
    'lib/routes.ts': [
      "import type { RouteConfig, RouteHandler } from '@hono/zod-openapi';",
      'export type Handler<R extends RouteConfig> = RouteHandler<R, object>;',
      'export const serverRoutes = (tag: string) => (scope: string, route: object) => ({ ...route, tag, scope });',
      '',
    ].join('\n'),
    'lib/app.ts': 'export const createRouter = (): any => ({ openapi: () => createRouter() });\n',
    'functions/alpha/rows.ts': [
      "import { systemClock } from '../../lib/clock';",
      "export const rowsOf = (db: any) => db.selectFrom('rows').selectAll().execute();",
      'export const addRow = (db: any, at: Date) => db.insertInto("rows").values({ at: new Date(at.getTime()) }).execute();',
      'export const clock = systemClock;',
      '',
    ].join('\n'),
    'functions/alpha/rows.routes.ts': [
      "import { createRouter } from '../../lib/app';",
      "import { serverRoutes } from '../../lib/routes';",
      "import { addRow, rowsOf } from './rows';",
      "const alphaRoute = serverRoutes('Alpha');",
      "const listRoute = alphaRoute('read:alpha', { method: 'get', path: '/rows' });",
      "const addRoute = alphaRoute('write:alpha', { method: 'post', path: '/rows' });",
      'const listRows = async (c: any) => c.json(await rowsOf(c.var.db));',
      'async function postRow(c: any) {',
      '  return c.json(await addRow(c.var.db, c.var.now()));',
      '}',
      'export const rows = createRouter().openapi(listRoute, listRows).openapi(addRoute, postRow);',
      '',
    ].join('\n'),
    'functions/alpha/admin.ts': [
      "import { createRouter } from '../../lib/app';",
      "import { rowsOf } from './rows';",
      "const route = { method: 'get', path: '/admin/rows' };",
      'export const admin = createRouter().openapi(route, async function listAll(c: any) {',
      '  return c.json(await rowsOf(c.var.db));',
      '});',
      '',
    ].join('\n'),
    'schema/alpha/rows.ts': 'export type Row = { at: Date };\nexport const epoch = new Date(0);\n',
    // The outbound guard and the files allowed to send requests themselves; a Worker's inbound `fetch` handler.
    'lib/outbound/guard.ts': [
      'export type Outbound = { fetch: typeof fetch };',
      'export const unpinnedFetch = (url: string, init: RequestInit) => fetch(url, init);',
      'export const guardedFetch = (outbound: Outbound, url: string) => outbound.fetch(url, { redirect: "manual" });',
      '',
    ].join('\n'),
    'lib/node/pinned-fetch.ts': "import { fetch } from 'undici';\nexport const pinned = (url: string) => fetch(url);\n",
    'lib/spam-check.ts': 'export const verify = (url: string) => globalThis.fetch(url, { method: "POST" });\n',
    'lib/worker.ts': [
      "import { guardedFetch } from './outbound/guard';",
      'type App = { fetch(request: Request): Promise<Response> };',
      'export const worker = (app: App) => ({ fetch: (request: Request) => app.fetch(request), guardedFetch });',
      '',
    ].join('\n'),
    'lib/audit.ts': "export const writeAudit = (db: any) => db.insertInto('audit_log').values({}).execute();\n",
    // Status moves: the code declared in lib/errors.ts, thrown only by lib/transitions.ts; a group's table, its handler type.
    'lib/errors.ts': 'export const problemStatus = { invalid_transition: 409 };\nexport type Code = "invalid_transition";\n',
    'lib/transitions.ts': [
      "import { problemStatus } from './errors';",
      'export const statusMachine = (noun: string, moves: object) => ({ noun, moves });',
      "export const checkMove = () => { throw Object.assign(new Error('refused'), { code: 'invalid_transition', problemStatus }); };",
      '',
    ].join('\n'),
    'functions/alpha/row-status.ts': [
      "import { checkMove, statusMachine } from '../../lib/transitions';",
      "export const rowMachine = statusMachine('row', { open: ['closed'], closed: [] });",
      '/** A refused move is `invalid_transition`, naming the allowed next statuses. */',
      'export const close = () => checkMove();',
      '',
    ].join('\n'),
    // A page at a secret token: declared through lib/pages.ts in its route file, answered by a function of page.ts.
    'lib/pages.ts': 'export const tokenPageRoute = (route: object) => ({ ...route, access: { kind: "page" } });\n',
    'functions/alpha/page.routes.ts': [
      "import { createRouter } from '../../lib/app';",
      "import { tokenPageRoute } from '../../lib/pages';",
      "import { rowPage } from './page';",
      "const pageRoute = tokenPageRoute({ path: '/rows/{token}' });",
      'const showRow = rowPage();',
      'export const pages = () => createRouter().openapi(pageRoute, showRow);',
      '',
    ].join('\n'),
    'functions/alpha/page.ts': [
      "import { rowsOf } from './rows';",
      'export const rowPage = () => async function showRow(c: any) {',
      '  return c.html(String(await rowsOf(c.var.db)));',
      '};',
      '',
    ].join('\n'),
  };

  it('passes a clean tree', () => {
    const graph = tree(clean);
    expect(graph.unresolved).toEqual([]);
    expect(shape(graph)).toEqual(none);
  });

  it('finds query builder calls and sql templates in route files (a route file: *.routes.ts and a group’s admin.ts)', () => {
    const graph = tree({
      ...clean,
      'functions/alpha/rows.routes.ts': `${clean['functions/alpha/rows.routes.ts']}export const direct = (db: any) => db.selectFrom('rows').selectAll();\n`,
      'functions/alpha/admin.ts': [
        "import { sql } from 'kysely';",
        'export const wipe = (db: any) => db.deleteFrom("rows").execute();',
        'export const count = (db: any) => sql`select count(*) from rows`.execute(db);',
        'export const names = (db: any) => db.updateTable("rows").set({}).execute();',
        '',
      ].join('\n'),
      // Not a route file: its queries are where they belong.
      'functions/alpha/route-helpers.ts': 'export const more = (db: any) => db.insertInto("rows").values({}).execute();\n',
    });
    expect(shape(graph)).toEqual({
      ...none,
      queries: [
        'functions/alpha/admin.ts:2 .deleteFrom()',
        'functions/alpha/admin.ts:3 sql`…`',
        'functions/alpha/admin.ts:4 .updateTable()',
        'functions/alpha/rows.routes.ts:12 .selectFrom()',
      ],
    });
  });

  it('finds routes declared or registered outside route files, and plain Hono routes anywhere in functions/', () => {
    const graph = tree({
      ...clean,
      // The statement page as it was: a plain Hono route in page.ts, outside defineRoute and outside the route files.
      'functions/alpha/page.ts': [
        "import { Hono } from 'hono';",
        "import { rowsOf } from './rows';",
        'async function showRow(c: any) {',
        '  return c.html(String(await rowsOf(c.var.db)));',
        '}',
        "export const pages = () => new Hono().get('/rows/:token', showRow);",
        '',
      ].join('\n'),
      'functions/alpha/page.routes.ts': 'export {};\n',
      // Declarations in a file that is no route file: the platform's, a group helper's, and a registration.
      'functions/alpha/more.ts': [
        "import { defineRoute } from '../../lib/access';",
        "import { createRouter } from '../../lib/app';",
        "import { serverRoutes } from '../../lib/routes';",
        "const alphaRoute = serverRoutes('Alpha');",
        "const one = defineRoute({ method: 'get', path: '/one', access: { kind: 'admin' } });",
        "const two = alphaRoute('read:alpha', { method: 'get', path: '/two' });",
        'const named = async function named(c: any) { return c.json(1); };',
        'export const more = createRouter().openapi(one, named).openapi(two, named);',
        '',
      ].join('\n'),
      'lib/access.ts': 'export const defineRoute = (route: object) => route;\n',
      // A plain route in a route file: declared nowhere, whatever the file.
      'functions/alpha/rows.routes.ts': `${clean['functions/alpha/rows.routes.ts']}export const extra = createRouter().post(\`/rows/\${1}\`, postRow);\n`,
      // Not routes: a group's route helper made (scopes.ts), a request's options, a path that is no route.
      'functions/alpha/scopes.ts':
        "import { serverRoutes } from '../../lib/routes';\nexport const alphaRoute = serverRoutes('Alpha', ['read:alpha']);\n",
      'functions/alpha/calls.ts':
        "export const options = { method: 'POST', headers: {} };\nexport const part = (m: Map<string, number>) => m.get('/rows');\n",
    });
    expect(shape(graph)).toEqual({
      ...none,
      outside: [
        'functions/alpha/more.ts:5 a route declared outside a route file',
        'functions/alpha/more.ts:6 a route declared outside a route file',
        'functions/alpha/more.ts:8 a route registered (.openapi) outside a route file',
        'functions/alpha/more.ts:8 a route registered (.openapi) outside a route file',
        'functions/alpha/page.ts:6 a plain Hono route outside a route file',
      ],
      plain: [
        'functions/alpha/page.ts:6 a plain Hono route (declare it with defineRoute)',
        'functions/alpha/rows.routes.ts:12 a plain Hono route (declare it with defineRoute)',
      ],
    });
  });

  it('finds the real clock read outside lib/clock.ts: new Date() without arguments and Date.now(), in any layer and in bin/', () => {
    const graph = tree({
      ...clean,
      'functions/alpha/rows.ts': `${clean['functions/alpha/rows.ts']}export const today = () => new Date();\n`,
      'lib/keys.ts': 'export const expired = (at: number) => at < Date.now();\nexport const copy = (d: Date) => new Date(d);\n',
      'schema/alpha/rows.ts': 'export const made = new Date();\n',
      // bin/'s scripts, TypeScript and JavaScript: a read of the clock, not a script's text that a client runs.
      'bin/server.ts': `import { systemClock } from '../lib/clock';\nexport const release = \`node-\${Date.now()}\`;\nexport const at = systemClock();\n`,
      'bin/tools/start.mjs': 'export const started = new Date().toISOString();\n',
      'bin/collection.ts': "export const script = ['pm.variables.set(\"now\", Date.now())', 'new Date()'];\n",
    });
    expect(shape(graph)).toEqual({
      ...none,
      clock: [
        'functions/alpha/rows.ts:5 new Date()',
        'lib/keys.ts:1 Date.now()',
        'schema/alpha/rows.ts:1 new Date()',
        'bin/server.ts:2 Date.now()',
        'bin/tools/start.mjs:1 new Date()',
      ],
    });
  });

  it('finds requests sent around the outbound guard: the global fetch called, passed or stored; the platform fetch called', () => {
    const graph = tree({
      ...clean,
      'functions/alpha/feeds.ts': 'export const feed = async (url: string) => (await fetch(url)).text();\n',
      'functions/alpha/sync.ts': [
        'export const sync = (services: any, url: string) => services.webhooks.fetch(url, {});',
        'export const again = (runtime: any, url: string) => runtime.fetch(url, {});',
        '',
      ].join('\n'),
      'lib/hooks.ts': 'export const hook = (url: string) => globalThis.fetch(url);\nexport const kept = { fetch };\n',
      'lib/runtime.ts': 'export const make = (f?: typeof fetch) => f ?? fetch;\n',
    });
    expect(shape(graph)).toEqual({
      ...none,
      fetches: [
        'functions/alpha/feeds.ts:1 the global fetch (use guardedFetch)',
        'functions/alpha/sync.ts:1 webhooks.fetch() around the guard (use guardedFetch)',
        'functions/alpha/sync.ts:2 runtime.fetch() around the guard (use guardedFetch)',
        'lib/hooks.ts:1 the global globalThis.fetch (use guardedFetch)',
        'lib/hooks.ts:2 the global fetch (use guardedFetch)',
        'lib/runtime.ts:1 the global fetch (use guardedFetch)',
      ],
    });
  });

  it('finds a group’s own route helper (functions/<group>/route.ts), whatever it holds', () => {
    const graph = tree({
      ...clean,
      'functions/beta/route.ts':
        "import { serverRoutes } from '../../lib/routes';\nexport const betaRoute = serverRoutes('Beta');\n",
    });
    expect(shape(graph)).toEqual({ ...none, helpers: ['functions/beta/route.ts:1 a group route helper (use lib/routes.ts)'] });
  });

  it('finds handlers given as anonymous arrows or anonymous function expressions, in any file of functions/', () => {
    const graph = tree({
      ...clean,
      'functions/alpha/rows.routes.ts': clean['functions/alpha/rows.routes.ts']!.replace(
        '.openapi(listRoute, listRows)',
        '.openapi(listRoute, async (c: any) => c.json(await rowsOf(c.var.db)))',
      ),
      'functions/alpha/admin.ts': clean['functions/alpha/admin.ts']!.replace('async function listAll(', 'async function ('),
    });
    expect(shape(graph)).toEqual({
      ...none,
      anonymous: ['functions/alpha/admin.ts:4 an anonymous handler', 'functions/alpha/rows.routes.ts:11 an anonymous handler'],
    });
  });

  it('finds audit rows written outside lib/audit.ts, in SQL or through the query builder, in any layer', () => {
    const graph = tree({
      ...clean,
      'functions/alpha/rows.ts': `${clean['functions/alpha/rows.ts']}export const audited = sql\`with a as (select 1)\n  INSERT INTO audit_log (action) values ('x')\`;\n`,
      'lib/keys.ts': 'export const revoked = (db: any) => db.insertInto("audit_log").values({}).execute();\n',
    });
    expect(shape(graph)).toEqual({
      ...none,
      audit: [
        'functions/alpha/rows.ts:6 an audit row written by hand (use lib/audit.ts)',
        'lib/keys.ts:1 an audit row written by hand (use lib/audit.ts)',
      ],
    });
  });

  it('finds invalid_transition by hand outside lib/transitions.ts, and a status table not named <noun>Machine (issue 33)', () => {
    const graph = tree({
      ...clean,
      'lib/errors.ts': `${clean['lib/errors.ts']}export class ApiError extends Error {}\n`,
      'functions/alpha/row-status.ts': [
        "import { ApiError } from '../../lib/errors';",
        "import { statusMachine } from '../../lib/transitions';",
        "export const rowStatus = statusMachine('row', { open: ['closed'], closed: [] });",
        "export const refuse = () => { throw new ApiError('invalid_transition', 'The row is closed.'); };",
        "export const field = { path: 'status', code: `invalid_transition`, message: 'The row is closed.' };",
        '',
      ].join('\n'),
    });
    expect(shape(graph)).toEqual({
      ...none,
      transitions: [
        'functions/alpha/row-status.ts:3 a status table named rowStatus (name it <noun>Machine)',
        'functions/alpha/row-status.ts:4 invalid_transition by hand (use lib/transitions.ts)',
        'functions/alpha/row-status.ts:5 invalid_transition by hand (use lib/transitions.ts)',
      ],
    });
  });

  it('finds handlers typed with RouteHandler outside lib/routes.ts, renamed or not (one handler type, issue 33)', () => {
    const graph = tree({
      ...clean,
      'functions/alpha/rows.routes.ts': `import type { RouteHandler } from '@hono/zod-openapi';\n${clean['functions/alpha/rows.routes.ts']}`,
      'lib/pages.ts': `import { type RouteHandler as Page, z } from '@hono/zod-openapi';\n${clean['lib/pages.ts']}`,
    });
    expect(shape(graph)).toEqual({
      ...none,
      handlerTypes: [
        'functions/alpha/rows.routes.ts:1 RouteHandler (type handlers Handler<typeof route>, lib/routes.ts)',
        'lib/pages.ts:1 RouteHandler (type handlers Handler<typeof route>, lib/routes.ts)',
      ],
    });
  });
});

describe('the money checker (issue 33), on trees of its own', () => {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  const tree = (files: Record<string, string>): ImportGraph => {
    const root = mkdtempSync(join(tmpdir(), 'money-'));
    made.push(root);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return readImportGraph(root);
  };
  const found = (graph: ImportGraph) => amountFormattingElsewhere(graph).map(describeFinding);

  /** lib/money.ts rounds and formats; lib/display.ts formats for people; the group only calls them; Math.round of time. */
  const clean: Record<string, string> = {
    'lib/money.ts': [
      "import Big from 'big.js';",
      'export const formatAmount = (v: string, digits: number) => new Big(v).toFixed(digits, Big.roundHalfUp);',
      'export const roundTo = (v: string, digits: number) => new Big(v).round(digits, Big.roundHalfUp);',
      '',
    ].join('\n'),
    'lib/display.ts':
      "export const formatMoney = (a: string, currency: string) => new Intl.NumberFormat('en', { style: 'currency', currency }).format(a as any);\n",
    'lib/details.ts': 'export const digitsOf = (n: number) => n.toFixed(0);\n',
    'lib/webhooks.ts': 'export const wait = (base: number, jitter: number) => Math.round(base * (1 + jitter));\n',
    'functions/alpha/rows.present.ts': [
      "import { formatAmount } from '../../lib/money';",
      "import { formatMoney } from '../../lib/display';",
      "export const shown = (v: string) => ({ amount: formatAmount(v, 3), text: formatMoney(v, 'KWD'), style: 'long' });",
      '',
    ].join('\n'),
  };

  it('passes a clean tree (the homes, a listed non-amount, Math.round of a duration)', () => {
    expect(found(tree(clean))).toEqual([]);
  });

  it('finds toFixed, big.js rounding, Intl currency formats and hundredths anywhere else, in any layer', () => {
    const graph = tree({
      ...clean,
      'functions/alpha/rows.present.ts': [
        "import Big from 'big.js';",
        'export const a = (v: string) => new Big(v).toFixed(2);',
        'export const b = (v: string) => new Big(v).round(3);',
        'export const c = (v: Big) => v.div(3).toFixed(3, Big.roundHalfEven);',
        "export const d = (v: number) => new Intl.NumberFormat('ar', { style: 'currency', currency: 'KWD' }).format(v);",
        "export const e = (v: number) => v.toLocaleString('en', { minimumFractionDigits: 3 });",
        'export const f = (v: number) => Math.round(v * 100) / 100;',
        '',
      ].join('\n'),
      'schema/alpha/amounts.ts': "export const maximumFractionDigits = 2;\nexport const o = { 'maximumFractionDigits': 2 };\n",
      // A second rounding in a listed file is found, with the first: the count no longer matches.
      'lib/details.ts':
        'export const digitsOf = (n: number) => n.toFixed(0);\nexport const cents = (n: number) => n.toFixed(2);\n',
    });
    const rows = 'functions/alpha/rows.present.ts';
    expect(found(graph)).toEqual([
      `${rows}:2 .toFixed() (use lib/money.ts)`,
      `${rows}:3 .round() (use lib/money.ts)`,
      `${rows}:4 .toFixed() (use lib/money.ts)`,
      `${rows}:4 a rounding mode (roundHalfEven) (use lib/money.ts)`,
      `${rows}:5 Intl's currency style (use lib/money.ts)`,
      `${rows}:6 the number format option minimumFractionDigits (use lib/money.ts)`,
      `${rows}:7 Math.round() of hundredths (use lib/money.ts)`,
      'lib/details.ts:1 .toFixed() (use lib/money.ts)',
      'lib/details.ts:2 .toFixed() (use lib/money.ts)',
      'schema/alpha/amounts.ts:2 the number format option maximumFractionDigits (use lib/money.ts)',
    ]);
  });
});

describe('the one-way checker (issue 33: locks, updated_at), on trees of its own', () => {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  const tree = (files: Record<string, string>): ImportGraph => {
    const root = mkdtempSync(join(tmpdir(), 'one-way-'));
    made.push(root);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return readImportGraph(root);
  };

  const oneWay = (graph: ImportGraph) => ({
    locks: locksElsewhere(graph).map(describeFinding),
    stamps: stampsElsewhere(graph).map(describeFinding),
  });

  /**
   * The calendar's locks in lib/calendar.ts (SQL and the query builder), the one table lock in its named home, a
   * record's own bare row locked by its group, and `updated_at` written only as `stamp`: read, presented, compared and
   * declared freely.
   */
  const clean: Record<string, string> = {
    'lib/clock.ts': "import { sql } from 'kysely';\nexport const stamp = sql`clock_timestamp()`;\n",
    'lib/calendar.ts': [
      'export const lockHomeCalendar = (trx: any, id: string) =>',
      "  trx.selectFrom('holiday_home_terms').select('listing_id').where('listing_id', '=', id).forNoKeyUpdate().execute();",
      `export const lockedTermsCte = (id: string) => sql\`terms as (select * from holiday_home_terms where listing_id = \${id} for no key update)\`;`,
      '',
    ].join('\n'),
    'lib/admin-tokens.ts':
      'export const issue = (trx: any) => sql`lock table admin_tokens in share row exclusive mode`.execute(trx);\n',
    'functions/alpha/jobs.ts': [
      "import { lockHomeCalendar } from '../../lib/calendar';",
      "import { stamp } from '../../lib/clock';",
      'export const lockJob = async (trx: any, id: string) => {',
      '  await lockHomeCalendar(trx, id);',
      `  await sql\`select from jobs where id = \${id} for update\`.execute(trx);`,
      '};',
      // A terms row read (not locked) beside another table's lock in a subquery of its own.
      `export const terms = (id: string) => sql\`select * from holiday_home_terms t where exists (select from jobs j where j.id = \${id} for share)\`;`,
      "export const touch = (db: any, set: object) => db.updateTable('jobs').set({ ...set, updated_at: stamp });",
      `export const bump = (id: string) => sql\`update leases set updated_at = \${stamp} where id = \${id}\`;`,
      `export const since = (at: Date) => sql\`select * from jobs where updated_at = \${at} or (updated_at = \${at})\`;`,
      '',
    ].join('\n'),
    'functions/alpha/jobs.present.ts': 'export const present = (row: any) => ({ updated_at: row.updated_at.toISOString() });\n',
    'schema/alpha/jobs.ts': "import { z } from 'zod';\nexport const Job = z.object({ updated_at: z.string() });\n",
  };

  it('passes a clean tree', () => {
    expect(oneWay(tree(clean))).toEqual({ locks: [], stamps: [] });
  });

  it('finds calendar locks outside lib/calendar.ts (SQL, nested subqueries, the query builder) and table or advisory locks outside their homes', () => {
    const graph = tree({
      ...clean,
      'functions/alpha/hold.ts': [
        'export const held = (id: string) => sql`with terms as (',
        "  select rules_version from holiday_home_terms where listing_id = (select id from listings where slug = 'x') for no key update",
        ')`;',
        `export const lockJob = (job: string) => sql\`select from holiday_home_terms where listing_id = \${job} for update\`;`,
        '',
      ].join('\n'),
      'functions/beta/bookings.ts': [
        'export const lockHomes = (trx: any, due: any) =>',
        "  trx.selectFrom('holiday_home_terms').select('listing_id').where('listing_id', 'in', due).orderBy('listing_id').forNoKeyUpdate();",
        '',
      ].join('\n'),
      'lib/scheduler.ts': 'export const once = (trx: any) => sql`select pg_advisory_xact_lock(42)`.execute(trx);\n',
      'functions/beta/members.ts':
        "export const all = (trx: any) => trx.executeQuery(sql.raw('LOCK TABLE members IN EXCLUSIVE MODE'));\n",
    });
    expect(oneWay(graph)).toEqual({
      locks: [
        'functions/alpha/hold.ts:1 a calendar lock of its own (use lib/calendar.ts)',
        'functions/alpha/hold.ts:4 a calendar lock of its own (use lib/calendar.ts)',
        'functions/beta/bookings.ts:2 a calendar lock of its own (use lib/calendar.ts)',
        'functions/beta/members.ts:1 a table or advisory lock outside its named homes',
        'lib/scheduler.ts:1 a table or advisory lock outside its named homes',
      ],
      stamps: [],
    });
  });

  it('finds updated_at written with anything but stamp: the services’ clock, SQL now() or clock_timestamp(), a value', () => {
    const graph = tree({
      ...clean,
      'functions/alpha/jobs.ts': `${clean['functions/alpha/jobs.ts']}${[
        "export const a = (db: any, now: Date) => db.updateTable('jobs').set({ updated_at: now });",
        "export const b = (db: any) => db.updateTable('jobs').set({ 'updated_at': sql`clock_timestamp()` });",
        'export const c = (id: string) => sql`update jobs set status = 1,',
        `  updated_at = now() where id = \${id}\`;`,
        `export const d = (now: Date) => sql\`update listings l set updated_at = \${now}::timestamptz\`;`,
        '',
      ].join('\n')}`,
      'lib/people.ts': "export const values = (at: number) => ({ name: 'x', updated_at: new Date(at) });\n",
    });
    expect(oneWay(graph)).toEqual({
      locks: [],
      stamps: [
        'functions/alpha/jobs.ts:11 updated_at: now (use stamp, lib/clock.ts)',
        'functions/alpha/jobs.ts:12 updated_at: sql`clock_timestamp()` (use stamp, lib/clock.ts)',
        `functions/alpha/jobs.ts:14 updated_at = … in SQL (use stamp, lib/clock.ts)`,
        `functions/alpha/jobs.ts:15 updated_at = … in SQL (use stamp, lib/clock.ts)`,
        'lib/people.ts:1 updated_at: new Date(at) (use stamp, lib/clock.ts)',
      ],
    });
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import type { ImportGraph } from './imports';
import type { Finding } from './shape';

/**
 * One way for each job (issue 33), read with the TypeScript compiler from the files of an import graph: the calendar's
 * locks are taken by lib/calendar.ts only, a table or advisory lock only in the files named for it, and `updated_at` is
 * written only as lib/clock.ts's `stamp` (the database's clock). The layout test judges the tree with these and
 * proves each on small trees of its own.
 */

/** The one home of the calendar's locks: every lock of a home's terms row (docs/invariants.md, "The calendar rule"). */
export const calendarLockFile = 'lib/calendar.ts';

/** The calendar's lock row: a home's terms row, locked by every writer of its nights. */
const calendarTables = ['holiday_home_terms'];

/** The files that may lock a whole table or take an advisory lock, each with its reason. */
export const tableLockFiles: Record<string, string> = {
  'lib/admin-tokens.ts': 'two first starts make one admin token between them: the table is locked while counted',
};

/**
 * Files whose findings another branch removes: each entry must still find something (so it is removed once the
 * branch has landed), and its findings are not counted meanwhile.
 */
export const pendingFiles: Record<string, string> = {};

/** The home of `stamp`, the one value `updated_at` is written with. */
export const stampFile = 'lib/clock.ts';

const lockMethods = ['forUpdate', 'forNoKeyUpdate', 'forShare', 'forKeyShare'];
const lockClause = /\bfor\s+(?:no\s+key\s+update|update|key\s+share|share)\b/i;
const tableLock = /\block\s+table\b|\bpg_(?:try_)?advisory_(?:xact_)?lock(?:_shared)?\b/i;

function parse(graph: ImportGraph, file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(join(graph.root, file), 'utf8'), ts.ScriptTarget.Latest, true);
}

function visit(node: ts.Node, each: (node: ts.Node) => void): void {
  each(node);
  ts.forEachChild(node, (child) => visit(child, each));
}

const lineOf = (sf: ts.SourceFile, node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;

/** The text of a string or template literal, each `${…}` written as it is in the source. */
function literalText(node: ts.Node, sf: ts.SourceFile): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (!ts.isTemplateExpression(node)) return undefined;
  // A name stays (`${stamp}`); any other value (a nested sql`…`, read on its own) is a placeholder.
  const shown = (e: ts.Expression) => (ts.isIdentifier(e) || ts.isPropertyAccessExpression(e) ? e.getText(sf) : '…');
  return node.head.text + node.templateSpans.map((s) => `\${${shown(s.expression)}}${s.literal.text}`).join('');
}

/** What follows `at` in its own parenthesised level (up to the bracket closing it), nested brackets left out. */
function sameLevel(text: string, at: number): string {
  let depth = 0;
  let kept = '';
  for (const char of text.slice(at)) {
    if (char === '(') depth++;
    else if (char === ')') {
      if (depth === 0) break;
      depth--;
    } else if (depth === 0) kept += char;
  }
  return kept;
}

/** Whether SQL text locks a calendar table: the lock clause of the select that reads it (not of a subquery of it). */
function locksCalendar(text: string): boolean {
  return calendarTables.some((table) =>
    [...text.matchAll(new RegExp(`\\b${table}\\b`, 'gi'))].some((m) => lockClause.test(sameLevel(text, m.index))),
  );
}

/** Whether a query builder chain ending at `call` reads a calendar table (`.selectFrom('holiday_home_terms')`). */
function chainReadsCalendar(call: ts.CallExpression): boolean {
  let node: ts.Expression = call.expression;
  while (ts.isPropertyAccessExpression(node) || ts.isCallExpression(node)) {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const [from] = node.arguments;
      if (node.expression.name.text === 'selectFrom' && from && ts.isStringLiteralLike(from)) {
        if (calendarTables.includes(from.text.split(/\s/)[0]!)) return true;
      }
    }
    node = node.expression;
  }
  return false;
}

/**
 * Locks outside their homes: a lock of the calendar (a home's terms row: `for no key update` and the like in SQL, or
 * `.forNoKeyUpdate()` on `.selectFrom('holiday_home_terms')`) anywhere but lib/calendar.ts, and a table lock
 * (`lock table`) or an advisory lock (`pg_advisory_xact_lock` and the like) anywhere but {@link tableLockFiles}. A
 * record's own bare row (`select from jobs … for update`) is its domain function's, in the record's own file.
 */
export function locksElsewhere(graph: ImportGraph): Finding[] {
  const found: Finding[] = [];
  for (const file of graph.files) {
    const sf = parse(graph, file);
    visit(sf, (node) => {
      const text = literalText(node, sf);
      if (text !== undefined) {
        if (file !== calendarLockFile && locksCalendar(text)) {
          found.push({ file, line: lineOf(sf, node), what: 'a calendar lock of its own (use lib/calendar.ts)' });
        }
        if (!(file in tableLockFiles) && tableLock.test(text)) {
          found.push({ file, line: lineOf(sf, node), what: 'a table or advisory lock outside its named homes' });
        }
      }
      if (
        file !== calendarLockFile &&
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        lockMethods.includes(node.expression.name.text) &&
        chainReadsCalendar(node)
      ) {
        found.push({ file, line: lineOf(sf, node), what: 'a calendar lock of its own (use lib/calendar.ts)' });
      }
    });
  }
  return found;
}

/** Reads `updated_at` (a presenter's copy, `iso(row.updated_at)`): not a write. */
function readsUpdatedAt(node: ts.Node): boolean {
  let reads = false;
  visit(node, (n) => {
    if (ts.isPropertyAccessExpression(n) && n.name.text === 'updated_at') reads = true;
  });
  return reads;
}

/** `updated_at = <value>` in SQL that is not `${stamp}` (nor a comparison: `where updated_at = …`, nor a copy). */
const sqlStamp =
  /(\b(?:where|and|or|on|when|not)\s+|\(\s*)?(?:\w+\.)?\bupdated_at\s*=(?!\s*(?:\$\{stamp\}|[\w.]*updated_at\b))/gi;

/**
 * `updated_at` written with anything but lib/clock.ts's `stamp` (the database's clock), in functions/ and lib/ (where
 * writes are; schema/ declares the field): `updated_at: now` or `` updated_at: sql`now()` `` in a query builder's
 * values, `updated_at = clock_timestamp()` in SQL.
 */
export function stampsElsewhere(graph: ImportGraph): Finding[] {
  const found: Finding[] = [];
  for (const file of graph.files.filter((f) => /^(functions|lib)\//.test(f) && f !== stampFile)) {
    const sf = parse(graph, file);
    visit(sf, (node) => {
      if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))) {
        if (node.name.text !== 'updated_at') return;
        const value = node.initializer;
        if ((ts.isIdentifier(value) && value.text === 'stamp') || readsUpdatedAt(value)) return;
        found.push({ file, line: lineOf(sf, node), what: `updated_at: ${value.getText(sf)} (use stamp, lib/clock.ts)` });
      }
      const text = literalText(node, sf);
      if (text === undefined) return;
      for (const m of text.matchAll(sqlStamp)) {
        const line = lineOf(sf, node) + (text.slice(0, m.index).match(/\n/g)?.length ?? 0);
        if (m[1] === undefined) found.push({ file, line, what: 'updated_at = … in SQL (use stamp, lib/clock.ts)' });
      }
    });
  }
  return found;
}

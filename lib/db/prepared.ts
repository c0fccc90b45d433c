import { CompiledQuery, type Expression, type OperationNodeSource, type QueryResult, type RawBuilder, sql } from 'kysely';
import type { Executor } from './index';

/** Where a value of a prepared statement goes: a named slot, filled from the values of each run. */
class Slot {
  constructor(readonly name: string) {}
}

/** The slots of a statement's values, as SQL: `${slots.email}` in a template or a Kysely builder. */
export type Slots<V> = { readonly [K in keyof V]-?: RawBuilder<V[K]> };

type Compiled = { text: string; names: string[]; constants: Map<string, unknown> };

/** The texts of this process's prepared statements, by text: a driver that can name statements names them so. */
const statementNames = new Map<string, string>();

/** Texts seen once, not yet named (a text sent a second time is named): at most {@link mostSeen}, then forgotten. */
const seenOnce = new Set<string>();
const mostSeen = 2048;
/** Texts named for being sent twice, and the most that are. */
let namedSeenTwice = 0;
const mostSeenTwice = 384;
/** A statement a driver may name: a query or a data-modifying statement (never transaction control or DDL). */
const nameable = /^\s*\(?\s*(select|with|insert|update|delete)\b/i;

/**
 * The name a driver may prepare this text under on each of its connections (PostgreSQL via pg: lib/db/postgres.ts;
 * PGlite: lib/db/pglite.ts), so the server parses and plans it once per connection instead of on every run (after
 * five runs PostgreSQL keeps a generic plan where it costs no more than planning each: its plan cache's own rule).
 * Named: the texts of {@link prepared} and {@link runNamed}, and any query or data-modifying text sent a second time
 * (issue 28: a write statement of a dozen CTEs took the server longer to plan than to run), as postgres.js prepares
 * every statement by default. At most {@link mostSeenTwice} texts are named for being sent twice, apart from those the
 * code names (at most {@link mostNamed} by runNamed, and prepared's), so they never crowd those out (the full test
 * suite, one process sending thousands of texts, filled a shared cap); a text that changes per call (a literal in it)
 * is never sent twice and stays unnamed. Undefined for any other text.
 */
export function preparedName(text: string): string | undefined {
  if (text.includes(plannedEachRun)) return undefined;
  const name = statementNames.get(text);
  if (name !== undefined || namedSeenTwice >= mostSeenTwice || !nameable.test(text)) return name;
  if (seenOnce.delete(text)) {
    namedSeenTwice++;
    nameText(text);
    return statementNames.get(text);
  }
  if (seenOnce.size >= mostSeen) seenOnce.clear();
  seenOnce.add(text);
  return undefined;
}

/**
 * A comment that keeps a statement unnamed wherever it is sent (a text holding it is never named, by
 * {@link preparedName} nor {@link runNamed}): PostgreSQL then plans it for each run's values. For a statement whose
 * best plan depends on its values so much that a generic one would serve none: a listing search's words (at 100,000
 * listings the generic plan of a word one listing holds took 207 ms, a nearest-neighbour scan for a word it cannot
 * see; with the trigram index tried and reverted on 2026-11-30, 1.4 s for "marina" and 5.7 s for "dubai", where each
 * word's own plan takes 8-40 ms; docs/performance.md, "A rare word at 100,000 listings"). PostgreSQL would keep the
 * generic plan once its estimated cost fell below the average of the custom ones.
 */
export const plannedEachRun = '/* planned each run */';

/** Gives `text` a statement name, once. */
function nameText(text: string): void {
  if (!statementNames.has(text)) statementNames.set(text, `prepared_${statementNames.size + 1}`);
}

/** The most texts {@link runNamed} names: past it a text runs unnamed, so a caller whose text varies cannot fill
 * every connection with plans. */
const mostNamed = 512;
let namedByCaller = 0;

/**
 * Runs a compiled query as a named statement where the driver names statements (PostgreSQL via pg: lib/db/postgres.ts;
 * PGlite: lib/db/pglite.ts), so the server parses and plans it once per connection: for a read whose planning costs
 * more than its run (a deal create's read plans in 3.6–8.3 ms and runs in 0.4 ms; bench/plan-times.ts). Its text must keep
 * values out (Kysely's parameters do), so that the texts, and the names, stay few.
 */
export function runNamed<R>(executor: Executor, query: CompiledQuery<R>): Promise<QueryResult<R>> {
  if (!statementNames.has(query.sql) && namedByCaller < mostNamed && !query.sql.includes(plannedEachRun)) {
    namedByCaller++;
    nameText(query.sql);
  }
  return executor.executeQuery(query);
}

/**
 * A statement built and compiled by Kysely once per process, then sent with new values on every run. A visitor's
 * form sends the same text every time, and building and compiling a statement of a dozen CTEs took more CPU than
 * sending it and reading its answer. `build` receives slots instead of values (and an executor to build Kysely queries
 * with); a value it embeds itself (a constant:
 * an event type, a literal) is kept with the text. Each slot is one `$n`, however often the text uses it. The text is
 * the same on every engine (PostgreSQL, PGlite, Neon: one compiler). On PostgreSQL through pg the text is also a
 * named statement of each connection ({@link preparedName}): parsing and planning a statement of a dozen CTEs took the
 * server longer than running it.
 */
export function prepared<V extends Record<string, unknown>, R>(
  build: (slots: Slots<V>, executor: Executor) => OperationNodeSource & Expression<unknown>,
) {
  let compiled: Compiled | undefined;
  return async (executor: Executor, values: V): Promise<R[]> => {
    compiled ??= compile(executor, build as (slots: unknown, executor: Executor) => OperationNodeSource & Expression<unknown>);
    const { text, names, constants } = compiled;
    const parameters = names.map((name) => (constants.has(name) ? constants.get(name) : values[name]));
    const { rows } = await executor.executeQuery<R>(CompiledQuery.raw(text, parameters));
    return rows;
  };
}

function compile(
  executor: Executor,
  build: (slots: unknown, executor: Executor) => OperationNodeSource & Expression<unknown>,
): Compiled {
  const slots = new Proxy({}, { get: (_, name) => sql`${new Slot(String(name))}` });
  const node = build(slots, executor);
  const { sql: text, parameters } = sql`${node}`.compile(executor);
  if (text.includes('$$')) throw new Error('a prepared statement cannot hold a dollar-quoted text');
  const names: string[] = [];
  const constants = new Map<string, unknown>();
  const numbers = parameters.map((parameter, i) => {
    const name = parameter instanceof Slot ? parameter.name : `#${i}`;
    if (!(parameter instanceof Slot)) constants.set(name, parameter);
    let at = names.indexOf(name);
    if (at < 0) at = names.push(name) - 1;
    return at + 1;
  });
  const numbered = text.replace(/\$(\d+)/g, (_, n: string) => `$${numbers[Number(n) - 1]}`);
  nameText(numbered);
  return { text: numbered, names, constants };
}

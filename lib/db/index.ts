import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../schema/db';

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** Either a database or an open transaction: read helpers accept both. */
export type Executor = Db | Trx;

/**
 * A database the platform can run on: Kysely for queries, plus the one thing Kysely cannot do the same way
 * on every engine, running a multi-statement SQL script (migrations).
 */
export type DatabaseHandle = {
  db: Db;
  engine: 'pglite' | 'postgres' | 'neon';
  /** PostgreSQL via pg: where a process opens a connection of its own outside the pool (LISTEN). */
  connectionString?: string;
  runScript(executor: Executor, script: string): Promise<void>;
  close(): Promise<void>;
};

/** PostgreSQL's `date` type: read as its `YYYY-MM-DD` text on every engine (a JS Date would shift it by a time zone). */
export const dateOid = 1082;
export const keepText = (value: string) => value;

/** For pg and Neon: a raw query without parameters uses the simple protocol, which takes many statements. */
export async function runScriptSimpleProtocol(executor: Executor, script: string): Promise<void> {
  await executor.executeQuery(CompiledQuery.raw(script));
}

/** PostgreSQL's unique_violation, as pg, Neon and PGlite all report it. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

/** PostgreSQL's exclusion_violation: an exclusion constraint refused a row (e.g. two rates of one category on a day). */
export function isExclusionViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23P01';
}

/** PostgreSQL's foreign_key_violation: a row referred to went (or a referring row came) since the statement's read. */
export function isForeignKeyViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23503';
}

/** Text PostgreSQL cannot store (U+0000 in a text or jsonb value): the client's input, never our failure. */
export function isUnstorableText(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === '22021' || code === '22P05';
}

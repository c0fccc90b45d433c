import { Kysely, type KyselyConfig, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../../schema/db';
import { type DatabaseHandle, dateOid, keepText, runScriptSimpleProtocol } from './index';

/** A PostgreSQL server through `pg` (the Node server with DATABASE_URL, tests and CI). */
export function openPostgres(
  connectionString: string,
  options: { max?: number; log?: KyselyConfig['log'] } = {},
): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === dateOid ? keepText : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client whose socket closes must not become an unhandled error that kills the process.
  pool.on('error', (error) => console.error('postgres pool error:', error.message));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: options.log });
  return { db, engine: 'postgres', connectionString, runScript: runScriptSimpleProtocol, close: () => db.destroy() };
}

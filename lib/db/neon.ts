import { neonConfig, Pool, types } from '@neondatabase/serverless';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from '../../schema/db';
import { type DatabaseHandle, dateOid, keepText, runScriptSimpleProtocol } from './index';

/**
 * Neon serverless Postgres over its WebSocket protocol. On Workers a pool may not outlive the request that
 * opened it, so the Worker opens one per request and closes it when the response is done.
 */
export function openNeon(connectionString: string): DatabaseHandle {
  const pool = new Pool({
    connectionString,
    max: 1,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === dateOid ? keepText : types.getTypeParser(oid, format)) as typeof types.getTypeParser,
    },
  });
  pool.on('error', (error: Error) => console.error('neon pool error:', error.message));
  // The Neon Pool is pg-compatible; Kysely's PostgresDialect only needs connect()/query()/release().
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: pool as never }) });
  return { db, engine: 'neon', runScript: runScriptSimpleProtocol, close: () => db.destroy() };
}

let proxyConfigured: string | undefined;
/** Points the Neon driver at a local WebSocket-to-TCP proxy (plain ws://, no TLS, no pipelining). */
export function useNeonProxy(proxy: string): void {
  if (proxyConfigured === proxy) return;
  neonConfig.wsProxy = (host, port) => `${proxy}/v1?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
  proxyConfigured = proxy;
}

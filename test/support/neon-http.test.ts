import { neon, neonConfig } from '@neondatabase/serverless';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { isRead, openNeon, useNeonProxy } from '../../lib/db/neon';
import { type NeonHttp, startNeonHttp } from './neon-http';
import { startWsTcpProxy, type WsTcpProxy } from './ws-tcp-proxy';

const CONNECTION_STRING = 'postgresql://postgres@127.0.0.1:5432/test';

let http: NeonHttp;
let proxy: WsTcpProxy;
// neonConfig is process-global; what is overwritten here is put back after.
let saved: Partial<typeof neonConfig>;

beforeAll(async () => {
  http = await startNeonHttp();
  proxy = await startWsTcpProxy();
  saved = {
    webSocketConstructor: neonConfig.webSocketConstructor,
    wsProxy: neonConfig.wsProxy,
    useSecureWebSocket: neonConfig.useSecureWebSocket,
    pipelineTLS: neonConfig.pipelineTLS,
    pipelineConnect: neonConfig.pipelineConnect,
    fetchEndpoint: neonConfig.fetchEndpoint,
  };
  neonConfig.webSocketConstructor = WebSocket;
  useNeonProxy(`127.0.0.1:${proxy.port}`, `127.0.0.1:${http.port}`);
});

afterAll(async () => {
  Object.assign(neonConfig, saved);
  await proxy.close();
  await http.close();
});

// Neon's own HTTP client (`neon()`), as a Worker's reads use it, against the stand-in.
describe('the stand-in of Neon’s SQL over HTTP', () => {
  const query = () => neon(CONNECTION_STRING, { fullResults: true });

  it('answers a statement with its fields and rows, each value parsed by its type', async () => {
    const result = await query().query(
      "select $1::int + 1 as n, $2::text as label, $3::text as nothing, $4::int[] as list, $5::jsonb as doc, $6::bytea as bytes, date '2027-01-01' as day",
      [41, 'héllo ٣', null, [1, 2], { a: 1 }, Buffer.from([0, 255])],
    );
    expect(result.command).toBe('SELECT');
    expect(result.rowCount).toBe(1);
    expect(result.fields.map((f) => [f.name, f.dataTypeID])).toEqual([
      ['n', 23],
      ['label', 25],
      ['nothing', 25],
      ['list', 1007],
      ['doc', 3802],
      ['bytes', 17],
      ['day', 1082],
    ]);
    expect(result.rows[0]).toMatchObject({ n: 42, label: 'héllo ٣', nothing: null, list: [1, 2], doc: { a: 1 } });
    expect(Array.from(result.rows[0]?.bytes as Uint8Array)).toEqual([0, 255]);
  });

  it('runs a batch as one transaction, and answers a PostgreSQL error as Neon does (400, its code and constraint)', async () => {
    const run = query();
    const made = await run.transaction(
      [
        run.query('create temp table t (id int primary key)'),
        run.query('insert into t values (1), (2)'),
        run.query('select count(*)::int as n from t'),
      ],
      { isolationLevel: 'RepeatableRead' },
    );
    expect(made.map((r) => r.command)).toEqual(['CREATE', 'INSERT', 'SELECT']);
    expect(made[1]?.rowCount).toBe(2);
    expect(made[2]?.rows).toEqual([{ n: 2 }]);
    const refused = await run
      .transaction([run.query('create temp table u (id int primary key)'), run.query('insert into u values (1), (1)')])
      .catch((error: unknown) => error as { code?: string; constraint?: string; message: string });
    expect(refused).toMatchObject({ code: '23505', constraint: 'u_pkey' });
  });

  it('serves loopback databases only, and raw text output only', async () => {
    const elsewhere = neon('postgresql://postgres@10.0.0.1:5432/test');
    await expect(elsewhere.query('select 1')).rejects.toThrow(/loopback/);
    const plain = await fetch(`http://127.0.0.1:${http.port}/sql`, {
      method: 'POST',
      headers: { 'Neon-Connection-String': CONNECTION_STRING },
      body: JSON.stringify({ query: 'select 1' }),
    });
    expect(plain.status).toBe(400);
  });
});

describe('lib/db/neon.ts on Neon', () => {
  it('sends a read outside a transaction over HTTP, and a write or a transaction through the WebSocket', async () => {
    const handle = openNeon(CONNECTION_STRING, { readsOverHttp: true });
    try {
      const counts = () => ({ statements: http.statements, connections: proxy.connections });
      const start = counts();
      const read = await sql<{ day: string; n: string }>`select date '2027-02-28' as day, ${7}::bigint as n`.execute(handle.db);
      // The same values as through the WebSocket: a date as its text (lib/db/index.ts), a bigint as text (pg's parser).
      expect(read.rows).toEqual([{ day: '2027-02-28', n: '7' }]);
      expect(counts()).toEqual({ statements: start.statements + 1, connections: start.connections });

      const table = `neon_http_${process.pid}`;
      await sql`create table if not exists ${sql.table(table)} (id int primary key)`.execute(handle.db);
      await sql`insert into ${sql.table(table)} values (1)`.execute(handle.db);
      const inTransaction = await handle.db.transaction().execute(async (trx) => {
        await sql`insert into ${sql.table(table)} values (2)`.execute(trx);
        return (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(trx)).rows[0]?.n;
      });
      expect(inTransaction).toBe(2);
      // Only the first read went over HTTP; the pool's one connection served everything after it.
      expect(counts()).toEqual({ statements: start.statements + 1, connections: start.connections + 1 });
      await sql`drop table ${sql.table(table)}`.execute(handle.db);
    } finally {
      await handle.close();
    }
  });

  it('takes for a read only a query that names nothing that changes stored rows, locks or sets', () => {
    expect(isRead('select * from listings where updated_at > $1')).toBe(true);
    expect(isRead('  (select 1) union (select 2)')).toBe(true);
    expect(isRead('with a as (select 1) select * from a')).toBe(true);
    // A read that records itself (a personal-data read's audit row, lib/audit.ts): one statement, its own transaction.
    expect(isRead('with answer_read as (insert into audit_log (actor) values ($1) returning 1) select 1')).toBe(true);
    expect(isRead('with a as (insert\n  into t values (1) returning *) select * from a')).toBe(true);
    expect(isRead('with a as (update t set n = 1 returning *) select * from a')).toBe(false);
    expect(isRead('with a as (delete from t returning *) select * from a')).toBe(false);
    expect(isRead('insert into t values (1)')).toBe(false);
    expect(isRead('with a as (insert into t select * from u on conflict (id) do update set n = 1) select 1')).toBe(false);
    expect(isRead('select * from deals where id = $1 for update')).toBe(false);
    expect(isRead('select * from deals where id = $1 for key share')).toBe(false);
    expect(isRead('select * into copied from deals')).toBe(false);
    expect(isRead('select locked_at, shared_with from t')).toBe(true);
    expect(isRead("select set_config('app.x', $1, true)")).toBe(false);
    expect(isRead('select nextval($1)')).toBe(false);
    expect(isRead('select 1; delete from t')).toBe(false);
    expect(isRead('update t set a = 1')).toBe(false);
    expect(isRead('begin')).toBe(false);
  });
});

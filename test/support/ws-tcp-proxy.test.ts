import { neonConfig, Pool } from '@neondatabase/serverless';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startWsTcpProxy, type WsTcpProxy } from './ws-tcp-proxy';

const CONNECTION_STRING = 'postgresql://postgres@127.0.0.1:5432/test';

describe('ws-tcp-proxy', () => {
  let proxy: WsTcpProxy;
  // neonConfig is process-global; remember what we overwrite so other tests are unaffected.
  let saved: Pick<
    typeof neonConfig,
    'webSocketConstructor' | 'wsProxy' | 'useSecureWebSocket' | 'pipelineTLS' | 'pipelineConnect'
  >;

  beforeAll(async () => {
    proxy = await startWsTcpProxy();
    saved = {
      webSocketConstructor: neonConfig.webSocketConstructor,
      wsProxy: neonConfig.wsProxy,
      useSecureWebSocket: neonConfig.useSecureWebSocket,
      pipelineTLS: neonConfig.pipelineTLS,
      pipelineConnect: neonConfig.pipelineConnect,
    };
    neonConfig.webSocketConstructor = WebSocket;
    neonConfig.wsProxy = (host, port) => `127.0.0.1:${proxy.port}/v1?address=${host}:${port}`;
    // Plain ws:// and no TLS: the proxy and local PostgreSQL speak neither TLS nor Neon's pipelining.
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineTLS = false;
    neonConfig.pipelineConnect = false;
  });

  afterAll(async () => {
    Object.assign(neonConfig, saved);
    await proxy.close();
  });

  it('carries a Neon Pool to local PostgreSQL', async () => {
    const pool = new Pool({ connectionString: CONNECTION_STRING });
    try {
      const one = await pool.query<{ one: number }>('select 1 as one');
      expect(one.rows).toEqual([{ one: 1 }]);

      const sum = await pool.query<{ sum: number; label: string }>('select $1::int + $2::int as sum, $3::text as label', [
        20,
        22,
        'héllo',
      ]);
      expect(sum.rows).toEqual([{ sum: 42, label: 'héllo' }]);
    } finally {
      await pool.end();
    }
  });

  it('refuses targets that are not on loopback', async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${proxy.port}/v1?address=10.0.0.1:5432`);
      ws.on('unexpected-response', (_req, res) => {
        resolve(res.statusCode);
        ws.terminate();
      });
      ws.on('open', () => reject(new Error('proxy accepted a non-loopback target')));
      ws.on('error', () => undefined);
    });
    expect(status).toBe(403);
  });
});

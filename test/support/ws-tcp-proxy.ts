/**
 * Test-support server: a minimal WebSocket-to-TCP relay compatible with the
 * wsproxy protocol of `@neondatabase/serverless`, so its Pool/Client can talk
 * to a local PostgreSQL. Each binary frame carries raw bytes of the TCP stream.
 */
import { createServer } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { type RawData, WebSocket, WebSocketServer } from 'ws';

export interface WsTcpProxy {
  port: number;
  /** Connections relayed since the start. */
  readonly connections: number;
  close(): Promise<void>;
}

// Only loopback targets: a test helper must not become an open relay.
const ALLOWED_HOSTS = new Set(['127.0.0.1', 'localhost']);

/** Parses `?address=HOST:PORT`; returns null unless it is an allowed loopback address. */
function parseTarget(rawUrl: string | undefined): { host: string; port: number } | null {
  const url = new URL(rawUrl ?? '/', 'http://proxy');
  if (url.pathname !== '/v1') return null;
  const address = url.searchParams.get('address') ?? '';
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon);
  const port = Number(address.slice(colon + 1));
  if (colon <= 0 || !ALLOWED_HOSTS.has(host) || !Number.isInteger(port) || port < 1 || port > 65535) {
    return null;
  }
  return { host, port };
}

const toBuffer = (data: RawData): Buffer =>
  Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);

/** Starts the relay; `opts.host` is the listen address (default 127.0.0.1). */
export async function startWsTcpProxy(opts: { host?: string } = {}): Promise<WsTcpProxy> {
  const server = createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain' }).end('WebSocket upgrade required\n');
  });
  const wss = new WebSocketServer({ noServer: true });
  const sockets = new Set<Socket>();
  let connections = 0;

  server.on('upgrade', (req, socket, head) => {
    const target = parseTarget(req.url);
    if (!target) {
      // Refuse before the handshake so the client sees a failed connection, not a closed one.
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => relay(ws, target.host, target.port));
  });

  function relay(ws: WebSocket, host: string, port: number): void {
    // Writes issued before 'connect' are buffered by net.Socket, so no queue is needed here.
    const tcp = connect({ host, port });
    connections++;
    sockets.add(tcp);
    tcp.setNoDelay(true);

    ws.on('message', (data) => {
      tcp.write(toBuffer(data));
    });
    tcp.on('data', (chunk) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(chunk, { binary: true });
    });

    ws.on('close', () => tcp.end());
    ws.on('error', () => tcp.destroy());
    tcp.on('close', () => {
      sockets.delete(tcp);
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close();
    });
    // 1011 tells the client the upstream failed (e.g. connection refused), not that it misbehaved.
    tcp.on('error', () => {
      if (ws.readyState === WebSocket.OPEN) ws.close(1011, 'upstream error');
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, opts.host ?? '127.0.0.1', () => resolve());
  });

  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return connections;
    },
    async close() {
      for (const ws of wss.clients) ws.terminate();
      for (const tcp of sockets) tcp.destroy();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

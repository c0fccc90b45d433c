#!/usr/bin/env node
// A static file server for trying the site locally (ES modules do not load from file://). Node only, no packages:
//   node examples/website/serve.mjs [--port 8080] [--host 127.0.0.1] [--root examples/website]
// It prints "Website: http://<host>:<port>/" once it listens. Any static host does the same job in production.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8080' },
    host: { type: 'string', default: '127.0.0.1' },
    root: { type: 'string', default: fileURLToPath(new URL('.', import.meta.url)) },
  },
});
const root = resolve(values.root);
const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** The file a URL path names under the root, or undefined when it would leave the root. */
function fileOf(pathname) {
  let path;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  const file = normalize(join(root, path.endsWith('/') ? `${path}index.html` : path));
  return file === root || file.startsWith(root + sep) ? file : undefined;
}

const server = createServer(async (req, res) => {
  const file = fileOf(new URL(req.url ?? '/', 'http://site').pathname);
  const info = file && (req.method === 'GET' || req.method === 'HEAD') ? await stat(file).catch(() => undefined) : undefined;
  if (!file || !info?.isFile()) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found\n');
    return;
  }
  res.writeHead(200, {
    'Content-Type': types[extname(file)] ?? 'application/octet-stream',
    'Content-Length': info.size,
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
  });
  if (req.method === 'HEAD') res.end();
  else createReadStream(file).pipe(res);
});

server.listen(Number(values.port), values.host, () => {
  const { port } = server.address();
  console.log(`Website: http://${values.host}:${port}/ (files from ${root})`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));

// `npm start`: the Node server from its bundle (bin/build-server.mjs builds it when a source file changed), in this
// one process: no second Node process to check the bundle, and stack traces through the bundle's source map.
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serverBundle } from './build-server.mjs';

const bundle = pathToFileURL(await serverBundle()).href;

/**
 * Stack traces name the bundle's sources (bin/server.ts, lib/…), as `--enable-source-maps` makes them, but the map is
 * read when a first stack is formatted rather than at each start: Node reads and parses an enabled map as the module
 * loads (3 MB of JSON, and a pass over the bundle's 5 MB), about a twentieth of a start's CPU (issue 39). A frame
 * outside the bundle, or one the map does not cover, reads as V8 writes it.
 */
let sourceMap;
function bundleMap() {
  if (sourceMap === undefined) {
    try {
      const payload = JSON.parse(readFileSync(fileURLToPath(`${bundle}.map`), 'utf8'));
      payload.sources = payload.sources.map((source) => fileURLToPath(new URL(source, bundle)));
      sourceMap = new SourceMap(payload);
    } catch {
      sourceMap = null;
    }
  }
  return sourceMap;
}

function frame(site) {
  const text = String(site);
  const line = site.getLineNumber();
  const column = site.getColumnNumber();
  if (site.getFileName() !== bundle || !line || !column) return text;
  const entry = bundleMap()?.findEntry(line - 1, column - 1);
  if (!entry?.originalSource) return text;
  const original = `${entry.originalSource}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  return text.replace(`${bundle}:${line}:${column}`, original);
}

Error.prepareStackTrace = (error, sites) => {
  let head;
  try {
    head = Error.prototype.toString.call(error);
  } catch {
    head = 'Error';
  }
  return [head, ...sites.map((site) => `    at ${frame(site)}`)].join('\n');
};

await import(bundle);

// `npm start`: the Node server from its bundle (bin/build-server.mjs builds it when a source file changed), in this
// one process: no second Node process to check the bundle, and stack traces through the bundle's source map.
import { pathToFileURL } from 'node:url';
import { serverBundle } from './build-server.mjs';

const bundle = await serverBundle();
// As --enable-source-maps does, for the modules loaded from here on: the bundle is.
process.setSourceMapsEnabled(true);
await import(pathToFileURL(bundle).href);

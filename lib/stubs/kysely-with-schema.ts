/**
 * Stands in for Kysely's `withSchema` plugin (kysely/dist/esm/plugin/with-schema/, with the operation-node transformer
 * it extends, about 5 KiB gzipped) in the Workers' bundles (wrangler.jsonc `alias`): every table of the platform is
 * in the connection's search path, no file of lib/ or functions/ calls `withSchema` or adds a Kysely plugin, and no
 * Worker migrates (Kysely's migrator uses it). Bundled only because Kysely's query creator has the `withSchema`
 * method.
 */
export class WithSchemaPlugin {
  constructor() {
    throw new Error('withSchema is not bundled into the Workers (lib/stubs/kysely-with-schema.ts).');
  }
}

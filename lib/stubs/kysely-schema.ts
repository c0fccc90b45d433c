/**
 * Stands in for Kysely's schema builders (kysely/dist/esm/schema/schema.js: `db.schema`, create/alter/drop of tables,
 * indexes, views and types, about 3 KiB gzipped) in the Workers' bundles (wrangler.jsonc `alias`). A Worker never
 * changes the schema: the migrations run on Node only (lib/db/migrate.ts, from `npm run migrate` and the Node server's
 * start; no Worker bundles it, test/platform/workers.test.ts), and no file of lib/ or functions/ reads `db.schema`.
 * Bundled only because the Kysely class has the `schema` getter.
 */
export class SchemaModule {
  constructor() {
    throw new Error('db.schema is not bundled into the Workers (lib/stubs/kysely-schema.ts).');
  }
}

/**
 * Stands in for Kysely's PostgreSQL introspector (kysely/dist/esm/dialect/postgres/postgres-introspector.js:
 * `db.introspection`) in the Workers' bundles (wrangler.jsonc `alias`): only Kysely's migrator reads the catalogue of
 * tables, and no Worker migrates. Bundled only because PostgresDialect creates it on request.
 */
export class PostgresIntrospector {
  constructor() {
    throw new Error('db.introspection is not bundled into the Workers (lib/stubs/kysely-introspector.ts).');
  }
}

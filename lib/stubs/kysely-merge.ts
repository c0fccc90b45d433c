/**
 * Stands in for Kysely's MERGE builders (kysely/dist/esm/query-builder/merge-query-builder.js: `db.mergeInto`) in the
 * Workers' bundles (wrangler.jsonc `alias`): no file of lib/ or functions/ writes a MERGE statement (their upserts are
 * `insert … on conflict`). Bundled only because Kysely's query creator has the `mergeInto` method.
 */
const absent = (): never => {
  throw new Error('db.mergeInto is not bundled into the Workers (lib/stubs/kysely-merge.ts).');
};

export class MergeQueryBuilder {
  constructor() {
    absent();
  }
}
export class WheneableMergeQueryBuilder extends MergeQueryBuilder {}
export class MatchedThenableMergeQueryBuilder extends MergeQueryBuilder {}
export class NotMatchedThenableMergeQueryBuilder extends MergeQueryBuilder {}

/**
 * Stands in for zod's JSON Schema reader (zod/v4/classic/from-json-schema.js: `z.fromJSONSchema`, about 3.5 KiB
 * gzipped) in the Workers' bundles (wrangler.jsonc `alias`): the platform writes JSON Schema (its OpenAPI documents)
 * and never reads one into a zod schema. Bundled only because `z` is a namespace object (lib/stubs/zod-compile.ts).
 */
export const fromJSONSchema = (): never => {
  throw new Error('z.fromJSONSchema is not bundled into the Workers (lib/stubs/zod-from-json-schema.ts).');
};

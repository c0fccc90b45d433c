/**
 * Stands in for three of zod's schema-to-schema helpers in the Workers' bundles (wrangler.jsonc `alias`): `z.input`
 * and `z.output` as functions (zod/v4/classic/in-out.js; the platform uses them as types only), `z.deepPartial`
 * (classic/deep-partial.js) and the older `JSONSchemaGenerator` class (core/json-schema-generator.js; the OpenAPI
 * documents are written by @asteasolutions/zod-to-openapi). Bundled only because `z` is a namespace object
 * (lib/stubs/zod-compile.ts). Every name they export is here; calling one says why it is missing.
 */
const absent = (): never => {
  throw new Error('This zod helper is not bundled into the Workers (lib/stubs/zod-visitors.ts).');
};

export const input = absent;
export const output = absent;
export const deepPartial = absent;
export class JSONSchemaGenerator {
  constructor() {
    absent();
  }
}

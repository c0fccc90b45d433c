/**
 * Stands in for zod's ahead-of-time compiler (zod/v4/core/compile.js: `z.compile`, `z.withParser`, about 9 KiB
 * gzipped) in the Workers' bundles (wrangler.jsonc `alias`). The platform never compiles a schema: its parsing is
 * zod's runtime parser (and z.object's own fast path, in core/schemas.js), which does not use this file. The file is
 * bundled only because `z` is a namespace object: @hono/zod-openapi hands it to extendZodWithOpenApi, so every
 * export of zod stays. Every name it exports is here; calling one says why it is missing.
 */
const absent = (): never => {
  throw new Error('z.compile is not bundled into the Workers (lib/stubs/zod-compile.ts).');
};

export const INVALID: unique symbol = Symbol.for('zod.compile.invalid') as never;
export class ZodCompileAsyncError extends Error {}
export class ZodCompileUnsupportedError extends Error {}
export const compile = absent;
export const withParser = absent;
export const compileFn = absent;

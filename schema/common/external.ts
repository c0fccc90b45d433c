import { z } from '@hono/zod-openapi';

/** A client's id for a record, as sent in bodies (`{external: {source, id}}`). */
export const ExternalInput = z
  .strictObject({
    source: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'Letters, digits, "_", "." and "-", up to 64 characters (e.g. hubspot).'),
    id: z.string().min(1).max(200),
  })
  .openapi('ExternalInput', { description: 'Your id for this record; `?external=<source>:<id>` finds it afterwards.' });

export const ExternalSchema = z.object({ source: z.string(), id: z.string() }).openapi('External');

import { z } from '@hono/zod-openapi';
import { ExternalSchema } from '../common/external';
import { text } from '../common/text';
import { checkListingFields, ImportListingFields } from './admin';

/**
 * The catalogue written by integrations (issue 38; docs/api-reference.md, "The catalogue written by integrations"): a
 * company's listing system holding a server key with `write:listings` writes its listings under its own ids.
 */

/** The integration's id of a listing in the path: `<source>:<id>`, as the spec's `?external=` filters spell it. */
export const ExternalIdParams = z.object({
  external_id: text()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}:[^/]{1,200}$/, 'As <source>:<id>, e.g. guesty:64f1c2 (no "/").')
    .openapi({ param: { name: 'external_id', in: 'path' }, example: 'guesty:64f1c2' }),
});

/** A photo by its address in the company's media store, with its alternative text per language. */
const PhotoByUrl = z.strictObject({
  url: text().url().max(2000).openapi({
    description:
      'The original’s address in the company’s media store: `<media base>/<company id>/<key>` (docs/deploy.md, "Photos"); the API stores no image.',
  }),
  alt: z.strictObject({ en: text().max(300), ar: text().max(300).optional() }),
});

/**
 * The listing as the integration writes it: the import's fields (schema/catalogue/admin.ts) and their checks, without
 * `status` (publish and withdraw are actions) and with photos by URL. Every PUT is whole: a field left out takes its
 * default, as in the import.
 */
export const ListingWriteInput = ImportListingFields.omit({ status: true, photos: true })
  .extend({ photos: z.array(PhotoByUrl).max(100).default([]) })
  .superRefine(checkListingFields)
  .openapi('ListingWriteInput');

export type ListingWrite = z.infer<typeof ListingWriteInput>;

const Warning = z.object({ code: z.string(), message: z.string() }).openapi('ListingWriteWarning');

/** What a write or an action answers: the listing as the catalogue finds it, and the warnings of the write. */
export const ListingWrittenSchema = z
  .object({
    listing_id: z.string(),
    external_id: z.string().openapi({ description: 'The integration’s id, `<source>:<id>`.' }),
    external: ExternalSchema,
    slug: z.object({ en: z.string(), ar: z.string().nullable() }),
    status: z.enum(['draft', 'published', 'withdrawn']),
    created: z.boolean().openapi({ description: 'Whether this request created the listing.' }),
    changed: z.boolean().openapi({ description: 'Whether this request changed it (a repeat changes nothing).' }),
    warnings: z.array(Warning),
  })
  .openapi('ListingWritten');

export type ListingWritten = z.infer<typeof ListingWrittenSchema>;

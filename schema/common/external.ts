import { z } from '@hono/zod-openapi';
import { text } from './text';

/**
 * The kinds of record a client may keep its own ids for (`external_ids.record_type`). The table takes any
 * lower-case word (migrations/0010_external_ids.sql), so a group adding a kind adds it here, without a migration.
 */
export const recordKinds = [
  'contact',
  'lead',
  'activity',
  'task',
  'lease',
  'rent_payment',
  'deal',
  'viewing',
  'contractor',
  'job',
  'job_charge',
  'inspection',
  'listing',
] as const;
export type RecordKind = (typeof recordKinds)[number];

/** The client's system, e.g. `hubspot`: one pattern for every record (and the table's check). */
export const externalSource = text().regex(
  /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
  'Letters, digits, "_", "." and "-", up to 64 characters (e.g. hubspot).',
);
export const externalIdText = text().min(1).max(200);

/** A client's id for a record, as sent in bodies (`{external: {source, id}}`). */
export const ExternalInput = z
  .strictObject({ source: externalSource, id: externalIdText })
  .openapi('ExternalInput', { description: 'Your id for this record; `?external=<source>:<id>` finds it afterwards.' });

export const ExternalSchema = z.object({ source: z.string(), id: z.string() }).openapi('External');

/**
 * `external=<source>:<id>` on a sync list: only the record the client keeps under that id (lib/external-ids.ts).
 * One parameter for every record; records that show the id as `source` + `external_id` (activities, tasks)
 * name it so in the message and the description.
 */
export function externalFilter(idName: string, description: string) {
  return {
    external: text()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}:.{1,200}$/, `As <source>:<${idName}>, e.g. hubspot:12345.`)
      .optional()
      .openapi({ description }),
  };
}

/** `?external=` of records that show their ids as `external: [{source, id}]` (contacts, leads). */
export const externalQuery = externalFilter('id', 'Only the record the client keeps under this id, as `<source>:<id>`.');

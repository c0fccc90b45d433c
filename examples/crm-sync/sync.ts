import type { Answer, createPropertyApiClient } from '../../clients/typescript/src/index';

/**
 * The recommended CRM loop for people (spec, "CRM sync"), through the typed client: list the people changed since
 * the last run (`updated_since`, every page), upsert each into the CRM, and write the CRM's id back once
 * (`PATCH {external: {source, id}}`), so `?external=<source>:<id>` finds the person later.
 */

export type Contact = Answer<'listContacts'>['results'][number];
export type PropertyApi = ReturnType<typeof createPropertyApiClient>;

/** The CRM side: stores a person and gives its own id for them. */
export type Crm = { source: string; upsert(contact: Contact): Promise<string> };

/** What a run did, and where the next run starts (the latest `updated_at` seen). */
export type SyncResult = { synced: number; linked: number; since: string | undefined };

export async function syncContacts(api: PropertyApi, crm: Crm, since?: string): Promise<SyncResult> {
  const result: SyncResult = { synced: 0, linked: 0, since };
  let cursor: string | undefined;
  do {
    const { data, error } = await api.GET('/api/v1/contacts', {
      params: { query: { page_size: 100, updated_since: since, cursor } },
    });
    if (error) throw new Error(`listing contacts failed: ${error.code} (${error.detail}, request ${error.request_id})`);
    for (const contact of data.results) {
      const id = await crm.upsert(contact);
      result.synced += 1;
      if (result.since === undefined || contact.updated_at > result.since) result.since = contact.updated_at;
      if (contact.external.some((e) => e.source === crm.source && e.id === id)) continue;
      const linked = await api.PATCH('/api/v1/contacts/{reference}', {
        params: { path: { reference: contact.reference } },
        body: { external: { source: crm.source, id } },
      });
      if (linked.error) throw new Error(`writing the CRM id back failed: ${linked.error.code} (${linked.error.detail})`);
      result.linked += 1;
    }
    cursor = data.next_cursor ?? undefined;
  } while (cursor);
  return result;
}

import { readFile, writeFile } from 'node:fs/promises';
import { createPropertyApiClient } from '../../clients/typescript/src/index';
import { type Contact, syncContacts } from './sync';

/**
 * One sync run from the command line, with a JSON file standing in for the CRM:
 *   PROPERTY_API_URL=http://localhost:8787 PROPERTY_API_KEY=sk_… npx tsx examples/crm-sync/main.ts [crm.json]
 * The key needs `read:contacts` and `write:contacts`. Run it again: only the people changed since are read.
 */
const file = process.argv[2] ?? 'crm.json';
const baseUrl = process.env.PROPERTY_API_URL ?? 'http://localhost:8787';
const serverKey = process.env.PROPERTY_API_KEY;
if (!serverKey) {
  console.error('Set PROPERTY_API_KEY to a server key (sk_…) with read:contacts and write:contacts.');
  process.exit(1);
}

type Store = { since?: string; people: Record<string, Contact> };
const store: Store = await readFile(file, 'utf8')
  .then((text) => JSON.parse(text) as Store)
  .catch(() => ({ people: {} }));

const api = createPropertyApiClient({ baseUrl, serverKey });
const crm = {
  source: 'crm-sync-example',
  // The CRM's id of a person is its key in the file: here, the platform's reference itself.
  upsert: async (contact: Contact) => {
    store.people[contact.reference] = contact;
    return contact.reference;
  },
};
const result = await syncContacts(api, crm, store.since);
store.since = result.since;
await writeFile(file, `${JSON.stringify(store, null, 2)}\n`);
console.log(`${result.synced} people synced, ${result.linked} linked to the CRM; next run from ${result.since ?? 'the start'}.`);

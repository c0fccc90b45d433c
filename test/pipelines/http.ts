import { demoPipelines } from '../../functions/pipelines/demo';
import type { TestApi } from '../support/harness';
import { world as oneWorld } from '../support/world';

/**
 * A company with the demo catalogue and the demo pipelines (sales, leasing), a member, a department and keys:
 * what the pipeline route tests share.
 */
export async function pipelineWorld(api?: TestApi, companyFields: Record<string, unknown> = {}) {
  // A thin layer over the one world builder (test/support/world.ts) until the pipeline tests use it directly.
  const base = await oneWorld({ api, company: companyFields });
  const own = base.api;
  const company = base.company;
  for (const pipeline of demoPipelines) {
    const res = await own.admin(`/companies/${company.id}/pipelines`, { body: pipeline });
    if (res.status !== 201) throw new Error(res.text);
  }
  const writer = await base.keyWith(['write:pipelines']);
  const reader = await base.keyWith(['read:pipelines']);
  const crmKey = (await base.keyWith(['write:contacts', 'read:contacts', 'write:leads'])).secret;
  const handler = base.members.lina;
  let serial = 0;
  const unique = () => `${Date.now().toString(36)}-${serial++}`;
  const world = {
    api: own,
    company,
    writer,
    reader,
    crmKey,
    handler,
    unique,
    /** A new contact of the company (POST /contacts), by its reference. */
    contact: async (email = `person.${unique()}@example.com`) => {
      const res = await own.request('/api/v1/contacts', { host: company.host, key: crmKey, body: { name: email, email } });
      if (res.status !== 201 && res.status !== 200) throw new Error(res.text);
      return res.json.reference as string;
    },
    write: (path: string, body: unknown, headers: Record<string, string> = {}, method = 'POST') =>
      own.request(`/api/v1${path}`, { host: company.host, key: writer.secret, method, body, headers }),
    get: (path: string) => own.request(`/api/v1${path}`, { host: company.host, key: reader.secret }),
    admin: (path: string, body?: unknown, method?: string) =>
      own.admin(`/companies/${company.id}${path}`, { body, method: method ?? (body === undefined ? 'GET' : 'POST') }),
    /** A new deal of `person` (a new contact by default) in the sales pipeline, with `overrides`. */
    deal: async (overrides: Record<string, unknown> = {}) => {
      const person = overrides.person ?? (await world.contact());
      const res = await world.write('/deals', { person, title: 'A deal', ...overrides });
      if (res.status !== 201) throw new Error(res.text);
      return res.json;
    },
    /** The events of the company, oldest first, as stored. */
    events: async () =>
      own.db.selectFrom('events').selectAll().where('company_id', '=', company.id).orderBy('created_at').orderBy('id').execute(),
    /**
     * The types of the events naming this reference, oldest first; the events of one transaction share its
     * `created_at`, so within one they are given in name order.
     */
    eventsOf: async (reference: string) =>
      (await world.events())
        .filter((e) => Object.values(e.data).includes(reference))
        .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.type.localeCompare(b.type))
        .map((e) => e.type),
  };
  return world;
}

export type PipelineWorld = Awaited<ReturnType<typeof pipelineWorld>>;

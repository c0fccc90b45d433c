import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../clients/typescript/src/index';
import { type AdminBody, type TestClient, testClient } from '../support/client';
import { createTestApi, type TestApi } from '../support/harness';
import { databaseNow, moveUpdatedAtBack } from '../support/times';
import { type ReceivedEvent, settle as settleLoop, WebhookReceiver } from '../support/webhook-receiver';
import { adminOf, createCompany, createKey } from '../support/world';

/**
 * The spec's recommended loop, end to end: a "CRM" subscribed to the company's CRM events verifies every
 * delivery, skips its own echoes, reads each record with its own server key, upserts it under its own id and
 * writes that id back; a periodic `updated_since` pull recovers what it missed (events dropped on purpose, and a
 * window with the subscription disabled). At the end the CRM's store equals the API's data.
 */

type Json = Record<string, any>;
type Kind = 'contact' | 'lead' | 'activity' | 'task';
type Key = { secret: string; prefix: string };
type Event = ReceivedEvent;
type Schemas = components['schemas'];
/** What a typed call resolves with. */
type Called = { data?: unknown; error?: unknown; response: Response };
/** The query of a sync list. */
type ListQuery = { updated_since?: string; page_size?: number; cursor?: string; external?: string };

const kinds: readonly Kind[] = ['contact', 'lead', 'activity', 'task'];
const apiIdOf = (kind: Kind, record: Json): string => (kind === 'task' ? record.task_id : record.reference);
/** The CRM's source name for the ids it writes back. */
const SOURCE = 'crm';
/** How far back each pull reaches before the previous pull's start (clock skew, transactions still committing). */
const OVERLAP_MS = 100;
const PAGE_SIZE = 3;
const CRM_EVENTS = [
  'contact.created',
  'contact.updated',
  'lead.created',
  'lead.assigned',
  'lead.status_changed',
  'activity.created',
  'task.created',
  'task.done',
];

/** A CRM with its own store (keyed by its own ids), a webhook endpoint on 127.0.0.1 and its own server key. */
class Crm {
  /** The CRM's records, keyed by the CRM's own ids. */
  readonly store = new Map<string, { kind: Kind; record: Json }>();
  readonly stats = { handled: 0, reads: 0, writeBacks: 0, pages: 0 };
  /** The webhook endpoint: verified deliveries, echoes and duplicates skipped, some events dropped on purpose. */
  readonly receiver: WebhookReceiver;
  /** Activities and tasks have no id the CRM can write back: it keeps the API's id → its own id. */
  private readonly index = new Map<string, string>();
  private serial = 0;
  /** The previous pull's start on the CRM's clock: a CRM that never pulled reads everything. */
  private lastPullStart = new Date(0);

  /** `client`: the typed client on the CRM's own server key `key`. */
  constructor(
    private readonly client: TestClient,
    readonly key: Key,
  ) {
    this.receiver = new WebhookReceiver(key.prefix);
  }

  /** Works the queue; returns how many events it handled. */
  async work(): Promise<number> {
    const events = this.receiver.take();
    for (const event of events) await this.handle(event);
    this.stats.handled += events.length;
    return events.length;
  }

  private async handle(event: Event): Promise<void> {
    const { type, data } = event;
    if (type.startsWith('contact.')) await this.upsert('contact', await this.read('contact', data.reference));
    else if (type.startsWith('lead.')) await this.upsert('lead', await this.read('lead', data.reference));
    else if (type.startsWith('task.')) await this.upsert('task', await this.read('task', data.task_id));
    else if (type === 'activity.created') {
      // No route reads one activity: list what changed since the event was recorded (it is among them)...
      const since = new Date(Date.parse(event.created_at) - OVERLAP_MS).toISOString();
      const listed = await this.pullList('activity', since);
      if (!listed.includes(data.reference)) throw new Error(`activity ${data.reference} not listed since ${since}`);
      // ...and refresh the lead it names: a call is the lead's first answer, which has no event of its own.
      if (data.lead) await this.upsert('lead', await this.read('lead', data.lead));
    } else throw new Error(`unexpected event ${type}`);
  }

  /** Upserts a record under the CRM's id; contacts and leads get that id written back (PATCH `external`). */
  private async upsert(kind: Kind, record: Json): Promise<void> {
    const apiId = apiIdOf(kind, record);
    if (kind === 'activity' || kind === 'task') {
      const local = this.index.get(`${kind}:${apiId}`) ?? this.newId(kind);
      this.index.set(`${kind}:${apiId}`, local);
      this.store.set(local, { kind, record });
      return;
    }
    // The API's record names the CRM's id once it was written back: that is how the CRM finds its copy.
    const linked = (record.external as Array<{ source: string; id: string }>).find(
      (e) => e.source === SOURCE && this.store.get(e.id)?.kind === kind,
    );
    const local = linked?.id ?? this.newId(kind);
    this.store.set(local, { kind, record });
    if (!linked && !record.erased) {
      const answer = await this.change(kind, apiId, { external: { source: SOURCE, id: local } });
      this.stats.writeBacks++;
      this.store.set(local, { kind, record: answer });
    }
  }

  /** A change made by a user of the CRM (its own write: the event that follows is an echo). */
  async moveLead(reference: string, status: string): Promise<void> {
    await this.upsert('lead', await this.change('lead', reference, { status: status as Schemas['LeadPatch']['status'] }));
  }

  /** Pages one sync list from `since` until `next_cursor` is null, upserting every record; returns their ids. */
  private async pullList(kind: Kind, since: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await this.ok(
        `list ${kind}s`,
        this.list(kind, { updated_since: since, page_size: PAGE_SIZE, cursor: cursor ?? undefined }),
      );
      this.stats.pages++;
      this.stats.reads++;
      for (const record of page.results as Json[]) {
        ids.push(apiIdOf(kind, record));
        await this.upsert(kind, record);
      }
      cursor = page.next_cursor;
    } while (cursor);
    return ids;
  }

  /** The periodic pull: every sync list from the previous pull's start minus the overlap. `started`: the CRM's clock. */
  async pull(started = new Date()): Promise<Record<Kind, string[]>> {
    const since = new Date(this.lastPullStart.getTime() - OVERLAP_MS).toISOString();
    const seen = {} as Record<Kind, string[]>;
    for (const kind of kinds) seen[kind] = await this.pullList(kind, since);
    this.lastPullStart = started;
    return seen;
  }

  /** One page of a sync list through the CRM's typed client. */
  list(kind: Kind, query: ListQuery): Promise<Called> {
    const params = { params: { query } };
    if (kind === 'contact') return this.client.GET('/api/v1/contacts', params);
    if (kind === 'lead') return this.client.GET('/api/v1/leads', params);
    if (kind === 'activity') return this.client.GET('/api/v1/activities', params);
    return this.client.GET('/api/v1/tasks', params);
  }

  /** One record, read with the CRM's key (no route reads one activity). */
  private async read(kind: Exclude<Kind, 'activity'>, id: string): Promise<Json> {
    const path = { params: { path: { reference: id } } };
    const res =
      kind === 'contact'
        ? this.client.GET('/api/v1/contacts/{reference}', path)
        : kind === 'lead'
          ? this.client.GET('/api/v1/leads/{reference}', path)
          : this.client.GET('/api/v1/tasks/{task_id}', { params: { path: { task_id: id } } });
    const record = await this.ok(`GET ${kind} ${id}`, res);
    this.stats.reads++;
    return record;
  }

  /** A change of a contact or a lead made by the CRM (its write-back, or a user's move). */
  private change(kind: Kind, reference: string, body: Schemas['ContactPatch'] & Schemas['LeadPatch']): Promise<Json> {
    const path = { params: { path: { reference } } };
    if (kind === 'contact')
      return this.ok(`PATCH contact ${reference}`, this.client.PATCH('/api/v1/contacts/{reference}', { ...path, body }));
    if (kind === 'lead')
      return this.ok(`PATCH lead ${reference}`, this.client.PATCH('/api/v1/leads/{reference}', { ...path, body }));
    throw new Error(`the CRM changes no ${kind}`);
  }

  /** A call's body, when answered 200. */
  private async ok(what: string, call: Promise<Called>): Promise<Json> {
    const res = await call;
    if (res.response.status !== 200) throw new Error(`CRM ${what}: ${res.response.status} ${JSON.stringify(res.error)}`);
    return res.data as Json;
  }

  private newId(kind: Kind): string {
    return `${kind}-${String(++this.serial).padStart(5, '0')}`;
  }

  /** The CRM's copy of an API record (undefined when it has none). */
  copyOf(kind: Kind, apiId: string): Json | undefined {
    return this.entries(kind).find(([, r]) => apiIdOf(kind, r) === apiId)?.[1];
  }

  entries(kind: Kind): Array<[string, Json]> {
    return [...this.store].filter(([, e]) => e.kind === kind).map(([local, e]) => [local, e.record]);
  }
}

let api: TestApi;
let company: { id: string; host: string };
let crm: Crm;
let subscription: { id: string; secret: string };
let site: Key;
/** The typed client on the site's key (the website and other integrations). */
let siteClient: TestClient;
let crmKey: Key;
let member: string;

beforeAll(async () => {
  // The dispatcher attempts every company's due deliveries: a database of this file alone.
  api = await createTestApi({ ownDatabase: true });
  company = await createCompany(api, { environment: 'development', settings: { phone_country: 'AE' } });
  crmKey = await createKey(api, company.id, {
    scopes: ['read:contacts', 'write:contacts', 'read:leads', 'write:leads', 'read:followups', 'write:followups'],
  });
  site = await createKey(api, company.id, { scopes: ['write:contacts', 'write:leads', 'write:followups'] });
  siteClient = testClient(api, { host: company.host, serverKey: site.secret });
  const inCompany = { params: { path: { company_id: company.id } } };
  const added = await adminOf(api).POST('/admin/v1/companies/{company_id}/members', {
    ...inCompany,
    body: { name: 'Sara Agent' } as AdminBody<'createCompanyMember'>,
  });
  expect(added.response.status, JSON.stringify(added.error)).toBe(201);
  member = added.data?.id as string;
  crm = new Crm(testClient(api, { host: company.host, serverKey: crmKey.secret }), crmKey);
  const url = await crm.receiver.listen();
  const created = await adminOf(api).POST('/admin/v1/companies/{company_id}/webhook-subscriptions', {
    ...inCompany,
    body: { url, event_types: CRM_EVENTS, description: 'CRM sync' } as AdminBody<'createCompanyWebhookSubscription'>,
  });
  expect(created.response.status, JSON.stringify(created.error)).toBe(201);
  subscription = { id: created.data?.id as string, secret: created.data?.secret as string };
  crm.receiver.useSecret(subscription.secret);
});
afterAll(async () => {
  await crm?.receiver.close();
  await api?.close();
});

/** A write of the site's, checked to be answered 200 or 201: its body. */
async function written(what: string, call: Promise<Called>): Promise<Json> {
  const res = await call;
  expect([200, 201], `${what}: ${JSON.stringify(res.error)}`).toContain(res.response.status);
  return res.data as Json;
}
/** "The website and other integrations": writes with a second server key, through the typed client. */
const siteWrite = {
  contact: (body: Schemas['ContactInput']) => written('POST /contacts', siteClient.POST('/api/v1/contacts', { body })),
  activity: (body: Schemas['ActivityInput']) => written('POST /activities', siteClient.POST('/api/v1/activities', { body })),
  task: (body: Schemas['TaskInput']) => written('POST /tasks', siteClient.POST('/api/v1/tasks', { body })),
  changeContact: (reference: string, body: Schemas['ContactPatch']) =>
    written(
      `PATCH /contacts/${reference}`,
      siteClient.PATCH('/api/v1/contacts/{reference}', { params: { path: { reference } }, body }),
    ),
  changeLead: (reference: string, body: Schemas['LeadPatch']) =>
    written(
      `PATCH /leads/${reference}`,
      siteClient.PATCH('/api/v1/leads/{reference}', { params: { path: { reference } }, body }),
    ),
  changeTask: (task_id: string, body: Schemas['TaskPatch']) =>
    written(`PATCH /tasks/${task_id}`, siteClient.PATCH('/api/v1/tasks/{task_id}', { params: { path: { task_id } }, body })),
};
const enquiry = (fields: Json) =>
  written(
    'POST /leads',
    siteClient.POST('/api/v1/leads', {
      body: { consent: true, consent_version: '2026-01', form: 'contact', ...fields } as never,
    }),
  );
let serial = 0;
const externalId = () => `ext-${++serial}`;

/** Delivers everything due and lets the CRM work, until both are idle. */
const settle = () => settleLoop(api, () => crm.work());

/** Every record of one sync list as the API has it now (full pull, no updated_since). */
async function apiRecords(kind: Kind): Promise<Json[]> {
  const records: Json[] = [];
  let cursor: string | null = null;
  do {
    const res = await crm.list(kind, { page_size: 100, cursor: cursor ?? undefined });
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    const page = res.data as { results: Json[]; next_cursor: string | null };
    records.push(...page.results);
    cursor = page.next_cursor;
  } while (cursor);
  return records;
}

const byApiId = (kind: Kind, records: Json[]) => Object.fromEntries(records.map((record) => [apiIdOf(kind, record), record]));

/** The CRM's store equals the API's data: the same records, once each, in their current state. */
async function expectMirror(): Promise<Record<Kind, Json[]>> {
  const state = {} as Record<Kind, Json[]>;
  for (const kind of kinds) {
    state[kind] = await apiRecords(kind);
    const mine = crm.entries(kind).map(([, record]) => record);
    // Stored once each: a second copy of a record would show twice here.
    expect(mine.map((r) => apiIdOf(kind, r)).sort(), `${kind}s stored`).toEqual(state[kind].map((r) => apiIdOf(kind, r)).sort());
    expect(byApiId(kind, mine), `${kind}s' state`).toEqual(byApiId(kind, state[kind]));
  }
  for (const contact of state.contact) {
    const ofPerson = crm
      .entries('lead')
      .filter(([, lead]) => lead.person === contact.reference)
      .map(([, lead]) => lead.reference);
    expect([...contact.leads].sort(), `leads of ${contact.reference}`).toEqual(ofPerson.sort());
  }
  return state;
}

/** The CRM's subscription switched on or off through the typed admin client. */
const enableSubscription = (enabled: boolean) =>
  adminOf(api).PATCH('/admin/v1/companies/{company_id}/webhook-subscriptions/{subscription_id}', {
    params: { path: { company_id: company.id, subscription_id: subscription.id } },
    body: { enabled },
  });

const deliveriesOf = (subscriptionId: string) =>
  api.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select(['d.status', 'e.id', 'e.type', 'e.caused_by'])
    .where('d.subscription_id', '=', subscriptionId)
    .execute();
const eventIds = async () =>
  new Set((await api.db.selectFrom('events').select('id').where('company_id', '=', company.id).execute()).map((e) => e.id));

describe('the recommended CRM sync loop', () => {
  it('mirrors the API through verified webhooks, skips its echoes, and recovers dropped events with updated_since pulls', async () => {
    // --- 1. Everything delivered: webhooks alone keep the CRM's store equal to the API's data.
    const amal1 = await enquiry({
      name: 'Amal Nasser',
      email: 'amal.nasser@example.com',
      message: 'Two bedrooms near the marina',
      details: { bedrooms: 2, budget: '1.2M AED' },
    });
    const bilal = await enquiry({ name: 'Bilal Haddad', phone: '+971 50 111 2233', service: 'rent' });
    const amal2 = await enquiry({ email: 'AMAL.NASSER@example.com', message: 'Also a villa?' });
    expect(amal2.person).toBe(amal1.person);
    const carla = await siteWrite.contact({
      name: 'Carla Ruiz',
      email: 'carla@example.com',
      external: { source: 'website', id: 'w-1' },
    });
    const quiet = await siteWrite.contact({ name: 'Dev Quiet', email: 'dev.quiet@example.com', roles: ['owner'] });
    const ivan = await siteWrite.contact({ name: 'Ivan Petrov', email: 'ivan@example.com' });
    await siteWrite.changeLead(amal1.reference, { status: 'contacted' });
    await siteWrite.changeLead(bilal.reference, { assignee: member });
    await siteWrite.activity({
      type: 'note',
      source: 'web',
      external_id: externalId(),
      lead: amal1.reference,
      body: 'Asked for a viewing',
    });
    await siteWrite.activity({
      type: 'call',
      source: 'phone',
      external_id: externalId(),
      lead: bilal.reference,
      body: 'Called back',
    });
    const brochure = await siteWrite.task({
      title: 'Send the brochure',
      source: 'web',
      external_id: externalId(),
      lead: amal1.reference,
    });
    await siteWrite.changeTask(brochure.task_id, { status: 'done' });
    await siteWrite.task({
      title: 'Call Carla',
      source: 'web',
      external_id: externalId(),
      person: carla.reference,
      due_on: '2031-01-15',
    });
    await settle();
    // A user of the CRM qualifies Bilal's lead: the CRM writes, and the event that follows is its own echo.
    await crm.moveLead(bilal.reference, 'qualified');
    await settle();

    expect(crm.receiver.stats.refused).toBe(0);
    expect(crm.receiver.dropped).toEqual([]);
    await expectMirror();
    expect(crm.copyOf('lead', bilal.reference)).toMatchObject({ status: 'qualified', assignee: member });
    expect(crm.copyOf('lead', bilal.reference)!.first_answered_at).not.toBeNull();
    expect(crm.copyOf('lead', amal1.reference)).toMatchObject({ details: { bedrooms: 2, budget: '1.2M AED' } });
    // Write-backs of contacts and the CRM's own status move came back as echoes, and were skipped.
    const echoesAfterWebhooks = crm.receiver.stats.echoes;
    expect(echoesAfterWebhooks).toBeGreaterThan(0);

    // A pull with nothing missed changes nothing (and sets the point the next pull starts from). Times are set,
    // not waited for: all of the above moves an hour back, and the pull starts half an hour back, so the next
    // pull (from that start minus the overlap) reaches all that follows and none of the above. This first pull
    // reads everything again (its copies' updated_at moved), which must find every copy and write nothing back.
    await moveUpdatedAtBack(api.db, ['contacts', 'leads', 'activities', 'tasks'], company.id, 3_600_000);
    const pullStart = new Date((await databaseNow(api.db)).getTime() - 1_800_000);
    const writeBacks = crm.stats.writeBacks;
    await crm.pull(pullStart);
    await settle();
    expect(crm.stats.writeBacks).toBe(writeBacks);
    await expectMirror();

    // --- 2. Missed events: some dropped by the CRM (answered 200, then lost), and a window with the
    // subscription disabled, in which nothing is delivered at all.
    crm.receiver.drop = (event) =>
      event.type === 'lead.status_changed' || event.type === 'task.done' || event.caused_by === 'admin';
    // Ivan, synced before the last pull, sends an enquiry: his lead is delivered, his contact does not change.
    const ivans = await enquiry({ email: 'ivan@example.com', message: 'Is the penthouse still free?' });
    expect(ivans.person).toBe(ivan.reference);
    const emre = await enquiry({ name: 'Emre Kaya', email: 'emre@example.com', details: { moving_in: '2031-03' } });
    await siteWrite.changeLead(amal1.reference, { status: 'viewing' });
    const keys = await siteWrite.task({
      title: 'Hand over keys',
      source: 'web',
      external_id: externalId(),
      lead: emre.reference,
    });
    await settle(); // the CRM reads the task while it is open
    await siteWrite.changeTask(keys.task_id, { status: 'done' });
    const erased = await adminOf(api).POST('/admin/v1/companies/{company_id}/contacts/{reference}/erase', {
      params: { path: { company_id: company.id, reference: bilal.person } },
    });
    expect(erased.data, JSON.stringify(erased.error)).toMatchObject({ erased: true, already_erased: false });
    await settle();

    const before = await eventIds();
    const off = await enableSubscription(false);
    expect(off.response.status, JSON.stringify(off.error)).toBe(200);
    const farah = await siteWrite.contact({ name: 'Farah Saleh', phone: '0502223344', language: 'ar' });
    const gita = await enquiry({ name: 'Gita Rao', email: 'gita@example.com', listing: 'no-such-listing' });
    await siteWrite.activity({
      type: 'email',
      source: 'mail',
      external_id: externalId(),
      lead: gita.reference,
      body: 'Sent the brochure',
    });
    await siteWrite.changeLead(emre.reference, { status: 'contacted' });
    await siteWrite.changeContact(carla.reference, { name: 'Carla Ruiz Gómez' });
    const on = await enableSubscription(true);
    expect(on.response.status, JSON.stringify(on.error)).toBe(200);
    const windowEvents = [...(await eventIds())].filter((id) => !before.has(id));
    const hana = await siteWrite.contact({ name: 'Hana Ito', email: 'hana@example.com' });
    await settle();

    // Nothing of the disabled window reached the CRM: those events have no delivery at all.
    expect(windowEvents.length).toBeGreaterThanOrEqual(5);
    const delivered = await deliveriesOf(subscription.id);
    expect(delivered.filter((d) => windowEvents.includes(d.id))).toEqual([]);
    expect(crm.receiver.dropped.map((e) => e.type).sort()).toEqual(['contact.updated', 'lead.status_changed', 'task.done']);
    // So the CRM is behind: missing records, stale statuses, and a person it still holds unerased.
    expect(crm.copyOf('contact', farah.reference)).toBeUndefined();
    expect(crm.copyOf('lead', gita.reference)).toBeUndefined();
    expect(crm.copyOf('contact', gita.person)).toBeUndefined();
    expect(crm.copyOf('lead', amal1.reference)?.status).toBe('contacted');
    expect(crm.copyOf('lead', emre.reference)?.status).toBe('new');
    expect(crm.copyOf('task', keys.task_id)?.status).toBe('open');
    expect(crm.copyOf('contact', carla.reference)?.name).toBe('Carla Ruiz');
    expect(crm.copyOf('contact', bilal.person)).toMatchObject({ erased: false, name: 'Bilal Haddad' });
    expect(crm.copyOf('lead', bilal.reference)).toMatchObject({ erased: false });
    expect(crm.copyOf('contact', hana.reference)).toMatchObject({ name: 'Hana Ito' }); // delivery resumed
    await expect(expectMirror()).rejects.toThrow();

    // --- 3. The periodic pull recovers all of it (paging with next_cursor), and writes the CRM's id back.
    const pages = crm.stats.pages;
    const pulled = await crm.pull();
    await settle();
    const state = await expectMirror();
    expect(crm.stats.pages - pages).toBeGreaterThan(kinds.length); // several lists needed more than one page
    // Only what changed since the previous pull (minus the overlap) came back: not the person nobody touched.
    expect(pulled.contact).not.toContain(quiet.reference);
    expect(pulled.contact).toEqual(expect.arrayContaining([farah.reference, gita.person, bilal.person, carla.reference]));
    expect(pulled.lead).toEqual(expect.arrayContaining([gita.reference, amal1.reference, emre.reference, bilal.reference]));

    // The erased person is erased in the CRM too, with their lead and the free text that named them.
    expect(crm.copyOf('contact', bilal.person)).toMatchObject({ erased: true, name: null, email: null, phone: null, roles: [] });
    expect(crm.copyOf('lead', bilal.reference)).toMatchObject({ erased: true, message: null, details: null, page: null });
    const bilalsCall = crm.entries('activity').find(([, a]) => a.lead === bilal.reference)?.[1];
    expect(bilalsCall).toMatchObject({ type: 'call', body: null });

    // Every contact and lead carries the CRM's id: `?external=crm:<local id>` finds each (erased ones too).
    for (const kind of ['contact', 'lead'] as const) {
      expect(crm.entries(kind)).toHaveLength(state[kind].length);
      for (const [local, record] of crm.entries(kind)) {
        expect(record.external).toContainEqual({ source: SOURCE, id: local });
        const found = (await crm.list(kind, { external: `${SOURCE}:${local}` })).data as { results: Json[] };
        expect(
          found.results.map((r) => r.reference),
          `${kind} ${local}`,
        ).toEqual([record.reference]);
      }
    }

    // The echo rule: every delivery of an event the CRM's key caused was skipped, and there were some after the pull.
    const deliveries = await deliveriesOf(subscription.id);
    expect(deliveries.every((d) => d.status === 'succeeded')).toBe(true);
    const echoes = deliveries.filter((d) => d.caused_by === `api:${crmKey.prefix}`);
    expect(crm.receiver.stats.echoes).toBe(echoes.length);
    expect(crm.receiver.stats.echoes).toBeGreaterThan(echoesAfterWebhooks); // the pull's write-backs (Farah, Gita)
    expect(crm.receiver.stats.received).toBe(deliveries.length);
    expect(crm.receiver.stats.refused).toBe(0);

    // At least once: a replayed event carries the same webhook-id, and the CRM does not handle it twice.
    const handled = crm.stats.handled;
    const replayed = deliveries.find((d) => d.type === 'lead.created' && d.caused_by === `api:${site.prefix}`)!;
    const replay = await adminOf(api).POST('/admin/v1/companies/{company_id}/events/{event_id}/replay', {
      params: { path: { company_id: company.id, event_id: replayed.id } },
      body: { subscription_id: subscription.id },
    });
    expect(replay.response.status, JSON.stringify(replay.error)).toBe(202);
    await settle();
    expect(crm.receiver.stats.duplicates).toBe(1);
    expect(crm.stats.handled).toBe(handled);

    // A further pull finds the CRM up to date: nothing to write back, the store unchanged.
    const writeBacksBefore = crm.stats.writeBacks;
    await crm.pull();
    await settle();
    expect(crm.stats.writeBacks).toBe(writeBacksBefore);
    await expectMirror();
  });
});

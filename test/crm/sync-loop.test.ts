import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApi, type TestApi } from '../support/harness';
import { databaseNow, moveUpdatedAtBack } from '../support/times';
import { type ReceivedEvent, settle as settleLoop, WebhookReceiver } from '../support/webhook-receiver';
import { createCompany, createKey } from '../support/world';

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

const kinds: readonly Kind[] = ['contact', 'lead', 'activity', 'task'];
const listPath: Record<Kind, string> = { contact: '/contacts', lead: '/leads', activity: '/activities', task: '/tasks' };
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

  constructor(
    private readonly api: TestApi,
    private readonly host: string,
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
    if (type.startsWith('contact.')) await this.upsert('contact', await this.call(`/contacts/${data.reference}`));
    else if (type.startsWith('lead.')) await this.upsert('lead', await this.call(`/leads/${data.reference}`));
    else if (type.startsWith('task.')) await this.upsert('task', await this.call(`/tasks/${data.task_id}`));
    else if (type === 'activity.created') {
      // No route reads one activity: list what changed since the event was recorded (it is among them)...
      const since = new Date(Date.parse(event.created_at) - OVERLAP_MS).toISOString();
      const listed = await this.pullList('activity', since);
      if (!listed.includes(data.reference)) throw new Error(`activity ${data.reference} not listed since ${since}`);
      // ...and refresh the lead it names: a call is the lead's first answer, which has no event of its own.
      if (data.lead) await this.upsert('lead', await this.call(`/leads/${data.lead}`));
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
      const answer = await this.call(`${listPath[kind]}/${apiId}`, 'PATCH', { external: { source: SOURCE, id: local } });
      this.stats.writeBacks++;
      this.store.set(local, { kind, record: answer });
    }
  }

  /** A change made by a user of the CRM (its own write: the event that follows is an echo). */
  async moveLead(reference: string, status: string): Promise<void> {
    await this.upsert('lead', await this.call(`/leads/${reference}`, 'PATCH', { status }));
  }

  /** Pages one sync list from `since` until `next_cursor` is null, upserting every record; returns their ids. */
  private async pullList(kind: Kind, since: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ updated_since: since, page_size: String(PAGE_SIZE) });
      if (cursor) query.set('cursor', cursor);
      const page = await this.call(`${listPath[kind]}?${query}`);
      this.stats.pages++;
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

  private async call(path: string, method = 'GET', body?: unknown): Promise<Json> {
    const res = await this.api.request(`/api/v1${path}`, { host: this.host, key: this.key.secret, method, body });
    if (res.status !== 200) throw new Error(`CRM ${method} ${path}: ${res.status} ${res.text}`);
    if (method === 'GET') this.stats.reads++;
    return res.json;
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
  const added = await api.admin(`/companies/${company.id}/members`, { body: { name: 'Sara Agent' } });
  expect(added.status, added.text).toBe(201);
  member = added.json.id;
  crm = new Crm(api, company.host, crmKey);
  const url = await crm.receiver.listen();
  const created = await api.admin(`/companies/${company.id}/webhook-subscriptions`, {
    body: { url, event_types: CRM_EVENTS, description: 'CRM sync' },
  });
  expect(created.status, created.text).toBe(201);
  subscription = { id: created.json.id, secret: created.json.secret };
  crm.receiver.useSecret(subscription.secret);
});
afterAll(async () => {
  await crm?.receiver.close();
  await api?.close();
});

/** "The website and other integrations": writes with a second server key. */
async function siteWrite(path: string, body: unknown, method = 'POST'): Promise<Json> {
  const res = await api.request(`/api/v1${path}`, { host: company.host, key: site.secret, body, method });
  expect([200, 201], `${method} ${path}: ${res.text}`).toContain(res.status);
  return res.json;
}
const enquiry = (fields: Json) => siteWrite('/leads', { consent: true, consent_version: '2026-01', form: 'contact', ...fields });
let serial = 0;
const externalId = () => `ext-${++serial}`;

/** Delivers everything due and lets the CRM work, until both are idle. */
const settle = () => settleLoop(api, () => crm.work());

/** Every record of one sync list as the API has it now (full pull, no updated_since). */
async function apiRecords(kind: Kind): Promise<Json[]> {
  const records: Json[] = [];
  let cursor: string | null = null;
  do {
    const res = await api.request(`/api/v1${listPath[kind]}?page_size=100${cursor ? `&cursor=${cursor}` : ''}`, {
      host: company.host,
      key: crmKey.secret,
    });
    expect(res.status, res.text).toBe(200);
    records.push(...res.json.results);
    cursor = res.json.next_cursor;
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
    const carla = await siteWrite('/contacts', {
      name: 'Carla Ruiz',
      email: 'carla@example.com',
      external: { source: 'website', id: 'w-1' },
    });
    const quiet = await siteWrite('/contacts', { name: 'Dev Quiet', email: 'dev.quiet@example.com', roles: ['owner'] });
    const ivan = await siteWrite('/contacts', { name: 'Ivan Petrov', email: 'ivan@example.com' });
    await siteWrite(`/leads/${amal1.reference}`, { status: 'contacted' }, 'PATCH');
    await siteWrite(`/leads/${bilal.reference}`, { assignee: member }, 'PATCH');
    await siteWrite('/activities', {
      type: 'note',
      source: 'web',
      external_id: externalId(),
      lead: amal1.reference,
      body: 'Asked for a viewing',
    });
    await siteWrite('/activities', {
      type: 'call',
      source: 'phone',
      external_id: externalId(),
      lead: bilal.reference,
      body: 'Called back',
    });
    const brochure = await siteWrite('/tasks', {
      title: 'Send the brochure',
      source: 'web',
      external_id: externalId(),
      lead: amal1.reference,
    });
    await siteWrite(`/tasks/${brochure.task_id}`, { status: 'done' }, 'PATCH');
    await siteWrite('/tasks', {
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
    await siteWrite(`/leads/${amal1.reference}`, { status: 'viewing' }, 'PATCH');
    const keys = await siteWrite('/tasks', {
      title: 'Hand over keys',
      source: 'web',
      external_id: externalId(),
      lead: emre.reference,
    });
    await settle(); // the CRM reads the task while it is open
    await siteWrite(`/tasks/${keys.task_id}`, { status: 'done' }, 'PATCH');
    const erased = await api.admin(`/companies/${company.id}/contacts/${bilal.person}/erase`, { method: 'POST' });
    expect(erased.json, erased.text).toMatchObject({ erased: true, already_erased: false });
    await settle();

    const before = await eventIds();
    const off = await api.admin(`/companies/${company.id}/webhook-subscriptions/${subscription.id}`, {
      method: 'PATCH',
      body: { enabled: false },
    });
    expect(off.status, off.text).toBe(200);
    const farah = await siteWrite('/contacts', { name: 'Farah Saleh', phone: '0502223344', language: 'ar' });
    const gita = await enquiry({ name: 'Gita Rao', email: 'gita@example.com', listing: 'no-such-listing' });
    await siteWrite('/activities', {
      type: 'email',
      source: 'mail',
      external_id: externalId(),
      lead: gita.reference,
      body: 'Sent the brochure',
    });
    await siteWrite(`/leads/${emre.reference}`, { status: 'contacted' }, 'PATCH');
    await siteWrite(`/contacts/${carla.reference}`, { name: 'Carla Ruiz Gómez' }, 'PATCH');
    const on = await api.admin(`/companies/${company.id}/webhook-subscriptions/${subscription.id}`, {
      method: 'PATCH',
      body: { enabled: true },
    });
    expect(on.status, on.text).toBe(200);
    const windowEvents = [...(await eventIds())].filter((id) => !before.has(id));
    const hana = await siteWrite('/contacts', { name: 'Hana Ito', email: 'hana@example.com' });
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
        const found = await api.request(`/api/v1${listPath[kind]}?external=${SOURCE}:${local}`, {
          host: company.host,
          key: crmKey.secret,
        });
        expect(
          found.json.results.map((r: Json) => r.reference),
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
    const replay = await api.admin(`/companies/${company.id}/events/${replayed.id}/replay`, {
      body: { subscription_id: subscription.id },
    });
    expect(replay.status, replay.text).toBe(202);
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

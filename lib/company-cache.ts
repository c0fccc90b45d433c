import type { Company } from '../schema/platform/db';

/**
 * The Host → company rows (with the catalogue version catalogue ETags carry) of one process or isolate, so a
 * 304 or a cached catalogue page needs no database round trip; and, on Node only, the API keys by prefix (with
 * their secrets' hashes) and the inbound channels by company and token hash (functions/forms/inbound.ts, migration
 * 0068), so a keyed request or an inbound delivery needs no round trip for them. Two ways to stay fresh:
 *
 * - `notified` (Node): the database announces every change to a company or its hosts on the channel
 *   {@link companyChannel} (migration 0016; every catalogue change updates `companies.catalogue_version`).
 *   Entries live until a notification names their company. While the listening connection is down, nothing is
 *   served from memory. A write request of this process marks the cache unsynced until the notifications its
 *   commit sent have been received (`sync`), so the next request of the same client reads its own write: a request
 *   that begins meanwhile waits for that round trip (one shared by every request waiting) and is then served from
 *   memory, rather than reading the rows again.
 * - `ttl` (Workers, where nothing can listen): an entry is served for `ttlMs`, and a write of this isolate
 *   drops every entry.
 *
 * Only rows found are kept (an unknown host always asks the database), and a row read while a notification
 * arrived is not kept (the generation check), so a notification can never be overtaken by an older read.
 */
export const companyChannel = 'company_changed';

type Entry = { company: Company; storedAt: number };
/** A key kept by its prefix, with the company it belongs to (a notification names the company). */
type KeyEntry = { companyId: string; value: unknown };
type Waiter = { companyId: string | undefined; resolve: () => void };

export type CompanyCacheOptions =
  | { mode: 'notified'; max?: number; sync?: () => Promise<void> }
  | { mode: 'ttl'; ttlMs: number; max?: number; now?: () => number };

export class CompanyCache {
  readonly #entries = new Map<string, Entry>();
  readonly #keys = new Map<string, KeyEntry>();
  readonly #options: CompanyCacheOptions;
  readonly #max: number;
  /** Bumped by every invalidation: a read that saw another generation when it started is not kept. */
  #generation = 0;
  /** Notified mode: the listening connection is up (LISTEN done). */
  #listening: boolean;
  /** Write requests finished, and the count the last completed sync covered. */
  #writes = 0;
  #synced = 0;
  #syncing: Promise<void> | undefined;
  /** Requests waiting for a sync to cover the writes finished before they began. */
  #syncWaiters: Array<{ target: number; resolve: () => void }> = [];
  #waiters: Waiter[] = [];
  #listeningWaiters: Array<() => void> = [];

  constructor(options: CompanyCacheOptions) {
    this.#options = options;
    this.#max = options.max ?? 10_000;
    this.#listening = options.mode === 'ttl';
  }

  /** Whether rows may be served from memory now. */
  get serving(): boolean {
    return this.#listening && this.#writes === this.#synced;
  }

  /**
   * Whether rows may be served to a request beginning now: the listening connection is up and every write request
   * this process finished before now has been seen through (notified mode: awaiting the round trip on the listening
   * connection that covers them, one shared by every request waiting, rather than reading the rows again).
   */
  async #current(): Promise<boolean> {
    if (!this.#listening) return false;
    const target = this.#writes;
    if (this.#synced >= target) return true;
    await new Promise<void>((resolve) => {
      this.#syncWaiters.push({ target, resolve });
      void this.#sync();
    });
    return this.#listening;
  }

  /**
   * Whether a row read from the database may be kept: the connection is up and no change was announced since the read
   * began (`generation`). A row read is as current as the database when read; a change committed after the read
   * began announces itself after, and drops it then.
   */
  #mayKeep(generation: number): boolean {
    return this.#listening && generation === this.#generation;
  }

  /** The company that owns `host`: from memory when it may be served, otherwise from `load` (then kept). */
  async lookup(host: string, load: (host: string) => Promise<Company | undefined>): Promise<Company | undefined> {
    if (await this.#current()) {
      const entry = this.#entries.get(host);
      if (entry && this.#fresh(entry)) return entry.company;
    }
    const generation = this.#generation;
    const company = await load(host);
    if (company && this.#mayKeep(generation)) {
      if (this.#entries.size >= this.#max) this.#entries.delete(this.#entries.keys().next().value as string);
      this.#entries.set(host, { company, storedAt: this.#now() });
    }
    return company;
  }

  /**
   * Whether rows are kept until the database announces a change (Node), rather than for a TTL (Workers): then a
   * form's write may take its company from memory too, as fresh as any read (the notifications' delay apart).
   */
  get notified(): boolean {
    return this.#options.mode === 'notified';
  }

  /**
   * The key with this prefix (`load` answers it with its company's id, or undefined for an unknown prefix): from
   * memory when it may be served, otherwise loaded, then kept (notified mode only; found keys only). Any row found by
   * a secret is kept so, under a prefix that cannot be another's (an inbound channel's: `inbound`, its company, its
   * token's hash).
   */
  async lookupKey<K>(
    prefix: string,
    load: (prefix: string) => Promise<{ companyId: string; value: K } | undefined>,
  ): Promise<K | undefined> {
    if (this.#options.mode !== 'notified') return (await load(prefix))?.value;
    if (await this.#current()) {
      const entry = this.#keys.get(prefix);
      if (entry) return entry.value as K;
    }
    const generation = this.#generation;
    const loaded = await load(prefix);
    this.keepKey(prefix, loaded, generation);
    return loaded?.value;
  }

  /** Where invalidations stand now: a read begun here may be kept if none came before it ends ({@link keepKey}). */
  get generation(): number {
    return this.#generation;
  }

  /**
   * Keeps a key read from the database by a read that began at `generation` (e.g. with its company, in one
   * statement), unless a change was announced since (notified mode only; found keys only).
   */
  keepKey(prefix: string, loaded: KeyEntry | undefined, generation: number): void {
    if (this.#options.mode !== 'notified' || !loaded || !this.#mayKeep(generation)) return;
    if (this.#keys.size >= this.#max) this.#keys.delete(this.#keys.keys().next().value as string);
    this.#keys.set(prefix, loaded);
  }

  /** A notification: the company changed (settings, catalogue version, hosts, keys) or was removed. */
  invalidate(companyId: string): void {
    this.#generation++;
    for (const [host, entry] of this.#entries) if (entry.company.id === companyId) this.#entries.delete(host);
    for (const [prefix, entry] of this.#keys) if (entry.companyId === companyId) this.#keys.delete(prefix);
    this.#wake(companyId);
  }

  /** Drops everything (the listening connection was lost or restored, or a write in TTL mode). */
  clear(): void {
    this.#generation++;
    this.#entries.clear();
    this.#keys.clear();
    this.#wake(undefined);
  }

  /** Notified mode: the listening connection is up (after LISTEN) or down. Either way the rows are dropped. */
  setListening(listening: boolean): void {
    this.clear();
    if (this.#options.mode === 'notified') this.#listening = listening;
    if (this.#listening) for (const resolve of this.#listeningWaiters.splice(0)) resolve();
  }

  /** Resolves once the listening connection is up (at once when it is). */
  listening(): Promise<void> {
    if (this.#listening) return Promise.resolve();
    return new Promise((resolve) => this.#listeningWaiters.push(resolve));
  }

  /**
   * A write request of this process finished (its transaction committed). Notified mode: rows are not served
   * until a round trip on the listening connection, sent after the commit, came back (the server sends a
   * listener its pending notifications before answering it). TTL mode: drops every row.
   */
  afterWrite(): void {
    if (this.#options.mode === 'ttl') {
      this.clear();
      return;
    }
    this.#writes++;
    void this.#sync();
  }

  /**
   * Resolves at the next invalidation of `companyId`, or when every row is dropped (the only event awaited
   * without an id). Create it before the change, await it after: tests wait for a notification this way.
   */
  changed(companyId?: string): Promise<void> {
    return new Promise((resolve) => this.#waiters.push({ companyId, resolve }));
  }

  /** Resolves once rows may be served again after this process's writes (or at once). */
  async settled(): Promise<void> {
    while (this.#syncing) await this.#syncing;
  }

  #sync(): Promise<void> {
    if (this.#syncing) return this.#syncing;
    const sync = this.#options.mode === 'notified' ? this.#options.sync : undefined;
    this.#syncing = (async () => {
      while (this.#synced !== this.#writes) {
        const covering = this.#writes;
        try {
          await sync?.();
        } catch {
          // The connection's loss is reported by its own listener, which stops serving until it is back.
        }
        this.#synced = covering;
        const waiting = this.#syncWaiters;
        this.#syncWaiters = [];
        for (const waiter of waiting) {
          if (waiter.target <= covering) waiter.resolve();
          else this.#syncWaiters.push(waiter);
        }
      }
      this.#syncing = undefined;
    })();
    return this.#syncing;
  }

  #wake(companyId: string | undefined): void {
    const waiting = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiting) {
      if (companyId === undefined || waiter.companyId === companyId) waiter.resolve();
      else this.#waiters.push(waiter);
    }
  }

  #fresh(entry: Entry): boolean {
    return this.#options.mode === 'notified' || this.#now() - entry.storedAt < this.#options.ttlMs;
  }

  #now(): number {
    return this.#options.mode === 'ttl' ? (this.#options.now ?? Date.now)() : 0;
  }
}

/**
 * A bounded map that forgets the least recently used entries first: at most `max` entries, and at most `maxSize`
 * in total of what `sizeOf` says each entry weighs (e.g. the bytes of a rendered body); an entry heavier than
 * `maxSize` on its own is not kept. Reading an entry makes it the most recent. In-memory caches of one process
 * or isolate (lru-cache did this before; it weighed about 6 KiB gzipped in every Worker's bundle).
 */
export class LruMap<K, V> {
  readonly #entries = new Map<K, { value: V; size: number }>();
  readonly #max: number;
  readonly #maxSize: number;
  readonly #sizeOf: (value: V, key: K) => number;
  #size = 0;

  constructor(options: { max?: number; maxSize?: number; sizeOf?: (value: V, key: K) => number }) {
    this.#max = options.max ?? Number.POSITIVE_INFINITY;
    this.#maxSize = options.maxSize ?? Number.POSITIVE_INFINITY;
    this.#sizeOf = options.sizeOf ?? (() => 0);
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    // A Map iterates in insertion order: re-inserting makes the entry the most recent.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const size = this.#sizeOf(value, key);
    if (size > this.#maxSize) return;
    this.#entries.set(key, { value, size });
    this.#size += size;
    for (const [oldest] of this.#entries) {
      if (this.#entries.size <= this.#max && this.#size <= this.#maxSize) break;
      this.delete(oldest);
    }
  }

  delete(key: K): boolean {
    const entry = this.#entries.get(key);
    if (!entry) return false;
    this.#entries.delete(key);
    this.#size -= entry.size;
    return true;
  }
}

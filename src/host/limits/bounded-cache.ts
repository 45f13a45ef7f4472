// A cache with a limit on its entries: when full, the entry used least recently
// goes. The host keeps things by a provider's serialized text (the Node
// provider a text evaluates to; what a pickle's inspection found), and a
// program may hold as many distinct texts as it has resources (a closure that
// captures a per-resource value serializes differently for each), so a cache
// keyed by text without a limit grows with the stack. Whatever is kept here
// must be something the host can make again from its key.
//
// A Map keeps insertion order: a hit is moved to the end, the first key is the
// least recently used. `onEvict` hears of each entry the limit pushed out (not
// of one deleted or replaced): whoever holds a copy elsewhere (a Python worker
// holding a provider by the id the host gave its text) can be told to drop it.

export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(
    readonly limit: number,
    private readonly onEvict?: (key: K, value: V) => void,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a cache's limit must be a whole number, at least 1 (got ${limit})`);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value kept for `key`, now the most recently used, or undefined. */
  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key) as V;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Keeps `value` for `key` as the most recently used; the least recently used goes when the limit is passed. */
  set(key: K, value: V): this {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.limit) {
      const [oldest, old] = this.entries.entries().next().value as [K, V];
      this.entries.delete(oldest);
      this.onEvict?.(oldest, old);
    }
    return this;
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  /** The keys, least recently used first (reading them does not count as use). */
  keys(): IterableIterator<K> {
    return this.entries.keys();
  }
}

// Per-instance caches: a map bounded in size, and one whose entries expire, so that no cache grows with traffic.

/** A map that forgets its oldest entries past a size, so that an instance's memory does not grow with what it has seen. */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly limit: number;

  constructor(limit: number) {
    super();
    this.limit = limit;
  }

  override set(key: K, value: V): this {
    if (!this.has(key) && this.size >= this.limit) {
      const oldest = this.keys().next();
      if (!oldest.done) this.delete(oldest.value);
    }
    return super.set(key, value);
  }
}

export interface ExpiringCacheOptions {
  /** How long a value is served before it is read again. */
  readonly ttlMs: number;
  /** Past this many entries the oldest are forgotten. */
  readonly limit?: number;
  /** How long "nothing there" is served before it is read again; by default it is not kept at all. */
  readonly missTtlMs?: number;
}

/** Values by id that are served for a while and then read again; `undefined` stands for "nothing there". */
export class ExpiringCache<T> {
  readonly #entries: BoundedMap<string, { value: T; until: number }>;
  readonly #ttlMs: number;
  readonly #missTtlMs: number;

  constructor(options: ExpiringCacheOptions) {
    this.#ttlMs = options.ttlMs;
    this.#missTtlMs = options.missTtlMs ?? 0;
    this.#entries = new BoundedMap(options.limit ?? 10_000);
  }

  /** The value while it is fresh. */
  peek(id: string, now: number): T | undefined {
    const hit = this.#entries.get(id);
    return hit && hit.until > now ? hit.value : undefined;
  }

  set(id: string, value: T, now: number): void {
    this.#entries.set(id, { value, until: now + this.#ttlMs });
  }

  /** The fresh value, or what `load` reads, kept for the time to live of a value or of a miss. */
  async get(id: string, now: number, load: () => Promise<T>): Promise<T> {
    const hit = this.#entries.get(id);
    if (hit && hit.until > now) return hit.value;
    const value = await load();
    if (value !== undefined) this.set(id, value, now);
    else if (this.#missTtlMs > 0) this.#entries.set(id, { value, until: now + this.#missTtlMs });
    else this.#entries.delete(id);
    return value;
  }

  clear(): void {
    this.#entries.clear();
  }
}

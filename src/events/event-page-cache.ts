// Serialized pages of GET /v1/events, reused only while they are exactly what the database would
// give now. A page changes when the organization or one of its events is written (each write bumps
// organizations.catalog_version, which the credential check reads on every request anyway) or
// when an event on it, or the one just after it, ends and leaves the list. Nothing else moves it.
export interface CachedEventPage {
  /** catalog version the page was read at (read before the page, so the page is at least this new) */
  version: number;
  /** epoch ms at which the first event on the page (or the look-ahead one) ends */
  validUntil: number;
  body: Buffer;
}

export class EventPageCache {
  readonly #entries = new Map<string, CachedEventPage>();
  readonly #maxEntries: number;

  constructor(maxEntries = 1000) {
    this.#maxEntries = maxEntries;
  }

  get(key: string, version: number, now: number): Buffer | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.version !== version || now >= entry.validUntil) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.body;
  }

  set(key: string, page: CachedEventPage): void {
    // Keep a newer page when a slower request that read an older version finishes last.
    const current = this.#entries.get(key);
    if (current && current.version > page.version) return;
    this.#entries.delete(key);
    if (this.#entries.size >= this.#maxEntries) {
      // Oldest insertion first: Map iteration order.
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(key, page);
  }
}

/**
 * Texts kept by key under the revision they were made from (store.ts `revisionOf`), within a
 * budget of characters: the oldest entries leave first. A text is handed back only for the very
 * revision it was stored under; it never decides whether a revision is current (the caller reads
 * the store's). Knows nothing of what the texts are.
 */
export class RevisionCache {
  readonly #entries = new Map<string, { readonly revision: number; readonly text: string }>();
  readonly #budget: number;
  #chars = 0;

  /** `budget`: characters of text kept at most; a text above a quarter of it is not kept. */
  constructor(budget: number) {
    this.#budget = budget;
  }

  /** Characters of text kept now. */
  get chars(): number {
    return this.#chars;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The text kept for `key` under exactly `revision`, else undefined. */
  get(key: string, revision: number): string | undefined {
    const entry = this.#entries.get(key);
    return entry?.revision === revision ? entry.text : undefined;
  }

  set(key: string, revision: number, text: string): void {
    this.delete(key);
    if (text.length > this.#budget / 4) return;
    this.#entries.set(key, { revision, text });
    this.#chars += text.length;
    for (const [oldest, entry] of this.#entries) {
      if (this.#chars <= this.#budget) break;
      this.#entries.delete(oldest);
      this.#chars -= entry.text.length;
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#chars -= entry.text.length;
  }
}

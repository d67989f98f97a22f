/**
 * Texts kept by key under the revision they were made from (store.ts `revisionOf`), within a
 * budget of characters. A text is handed back only for the very revision it was stored under; it
 * never decides whether a revision is current (the caller reads the store's). Knows nothing of
 * what the texts are.
 *
 * Two generations of half the budget each (the scheme of the quick-lru package): texts go into
 * the young one; when it is full it becomes the old one and the previous old one is dropped
 * whole; a text found in the old one moves to the young one. O(1) each: evicting one entry at a
 * time from a Map's oldest end costs a walk over every entry deleted before it (V8 keeps them
 * as holes until it rehashes): 7 to 10 µs a miss at 15,000 entries.
 */
interface Kept {
  readonly revision: number;
  readonly text: string;
}

export class RevisionCache {
  readonly #half: number;
  #young = new Map<string, Kept>();
  #old = new Map<string, Kept>();
  #youngChars = 0;
  #oldChars = 0;

  /** `budget`: characters of text kept at most; a text above a quarter of it is not kept. */
  constructor(budget: number) {
    this.#half = budget / 2;
  }

  /** Characters of text kept now (a text kept in both generations counts twice). */
  get chars(): number {
    return this.#youngChars + this.#oldChars;
  }

  /** The text kept for `key` under exactly `revision`, else undefined. */
  get(key: string, revision: number): string | undefined {
    const young = this.#young.get(key);
    if (young) return young.revision === revision ? young.text : undefined;
    const old = this.#old.get(key);
    if (old?.revision !== revision) return undefined;
    this.set(key, revision, old.text);
    return old.text;
  }

  set(key: string, revision: number, text: string): void {
    const replaced = this.#young.get(key);
    if (replaced) {
      this.#young.delete(key);
      this.#youngChars -= replaced.text.length;
    }
    if (text.length > this.#half / 2) return;
    if (this.#youngChars + text.length > this.#half) {
      this.#old = this.#young;
      this.#oldChars = this.#youngChars;
      this.#young = new Map();
      this.#youngChars = 0;
    }
    this.#young.set(key, { revision, text });
    this.#youngChars += text.length;
  }
}

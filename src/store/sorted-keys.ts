/**
 * A set of strings kept in code-point order (core/encoding.ts `compareText`, every engine's
 * listing order) for the listings of card-index.ts (identities by name, card ids by prefix) and
 * of the memory engine's Keyknox entries. Keys added or deleted wait apart and are merged in by the next read, so neither
 * loading a store nor a write pays for an order only a listing uses (k log k + n per read after
 * k changes, nothing when none came).
 */
import { compareText } from '../core/encoding.js';

export class SortedKeys {
  #sorted: string[] = [];
  #added: string[] = [];
  #deleted = new Set<string>();

  /** Adds a key the set does not hold (the caller knows: each is a new id or identity). */
  add(key: string): void {
    // A key deleted since the last read is still in place: it stays.
    if (!this.#deleted.delete(key)) this.#added.push(key);
  }

  /** Deletes a key the set holds (the caller knows). */
  delete(key: string): void {
    this.#deleted.add(key);
  }

  /**
   * The keys starting with `prefix`, in order, from the first one after `after` (when given),
   * at most `limit`: a binary search, then the page.
   */
  page(prefix: string, after: string | undefined, limit: number): string[] {
    const list = this.#list();
    let at = lowerBound(
      list,
      after !== undefined && compareText(after, prefix) >= 0 ? after : prefix,
    );
    if (at < list.length && after !== undefined && list[at] === after) at++;
    const page: string[] = [];
    for (; at < list.length && page.length < limit; at++) {
      const key = list[at] as string;
      if (!key.startsWith(prefix)) break;
      page.push(key);
    }
    return page;
  }

  #list(): readonly string[] {
    if (this.#deleted.size > 0) {
      const deleted = this.#deleted;
      this.#deleted = new Set();
      this.#sorted = this.#sorted.filter((key) => !deleted.has(key));
      this.#added = this.#added.filter((key) => !deleted.has(key));
    }
    if (this.#added.length === 0) return this.#sorted;
    const added = this.#added.sort(compareText);
    const old = this.#sorted;
    const merged: string[] = new Array<string>(old.length + added.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < old.length && j < added.length)
      merged[k++] =
        compareText(old[i] as string, added[j] as string) < 0
          ? (old[i++] as string)
          : (added[j++] as string);
    while (i < old.length) merged[k++] = old[i++] as string;
    while (j < added.length) merged[k++] = added[j++] as string;
    this.#sorted = merged;
    this.#added = [];
    return merged;
  }
}

/** The first index of sorted `list` whose item is >= `key`. */
function lowerBound(list: readonly string[], key: string): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compareText(list[mid] as string, key) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

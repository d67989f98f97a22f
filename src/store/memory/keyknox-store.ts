/**
 * The Keyknox contract of ../keyknox.ts in memory: maps keyed by address, records copied in and
 * out so a caller can never change what is stored by changing what it holds. One event loop,
 * so each call is atomic; the revision checks still decide every write, as in the durable
 * engines.
 */
import type {
  KeyknoxStore,
  KeyknoxV1Address,
  KeyknoxV1Record,
  KeyknoxV2Address,
  KeyknoxV2Entry,
  KeyknoxV2Filter,
  KeyknoxV2Summary,
} from '../keyknox.js';

// JSON arrays as keys: unambiguous whatever characters the parts hold.
const v1Key = (a: KeyknoxV1Address): string => JSON.stringify([a.app, a.identity]);
const v2Key = (a: KeyknoxV2Address): string =>
  JSON.stringify([a.app, a.owner, a.root, a.path, a.key]);

const byAddress = (a: KeyknoxV2Summary, b: KeyknoxV2Summary): number =>
  compare(a.address.root, b.address.root) ||
  compare(a.address.path, b.address.path) ||
  compare(a.address.key, b.address.key);
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export class MemoryKeyknoxStore implements KeyknoxStore {
  readonly #v1 = new Map<string, KeyknoxV1Record>();
  readonly #v2 = new Map<string, KeyknoxV2Entry>();

  v1Get(address: KeyknoxV1Address): Promise<KeyknoxV1Record | undefined> {
    return Promise.resolve(structuredClone(this.#v1.get(v1Key(address))));
  }

  v1Put(address: KeyknoxV1Address, next: KeyknoxV1Record, expected: number): Promise<boolean> {
    const key = v1Key(address);
    if ((this.#v1.get(key)?.revision ?? 0) !== expected) return Promise.resolve(false);
    this.#v1.set(key, structuredClone(next));
    return Promise.resolve(true);
  }

  v2Get(address: KeyknoxV2Address): Promise<KeyknoxV2Entry | undefined> {
    return Promise.resolve(structuredClone(this.#v2.get(v2Key(address))));
  }

  v2Put(next: KeyknoxV2Entry, expected: number): Promise<boolean> {
    const key = v2Key(next.address);
    if ((this.#v2.get(key)?.revision ?? 0) !== expected) return Promise.resolve(false);
    this.#v2.set(key, structuredClone(next));
    return Promise.resolve(true);
  }

  v2Delete(address: KeyknoxV2Address, expected: number): Promise<boolean> {
    const key = v2Key(address);
    if (this.#v2.get(key)?.revision !== expected) return Promise.resolve(false);
    this.#v2.delete(key);
    return Promise.resolve(true);
  }

  v2List(filter: KeyknoxV2Filter): Promise<KeyknoxV2Summary[]> {
    const out: KeyknoxV2Summary[] = [];
    for (const entry of this.#v2.values()) {
      const a = entry.address;
      if (a.app !== filter.app || a.owner !== filter.owner) continue;
      if (filter.root !== undefined && a.root !== filter.root) continue;
      if (filter.path !== undefined && a.path !== filter.path) continue;
      out.push({
        address: { ...a },
        readers: entry.readers.map((r) => r.identity),
        revision: entry.revision,
      });
    }
    return Promise.resolve(out.sort(byAddress));
  }
}

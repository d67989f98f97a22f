/**
 * The Keyknox contract of ../keyknox.ts in memory: maps keyed by address, records copied in and
 * out so a caller can never change what is stored by changing what it holds. One event loop,
 * so each call is atomic; the revision checks still decide every write, as in the durable
 * engines. The addresses are also kept sorted (../sorted-keys.ts) for the listing's pages.
 */
import type {
  KeyknoxStore,
  KeyknoxV1Address,
  KeyknoxV1Listed,
  KeyknoxV1Record,
  KeyknoxV2Address,
  KeyknoxV2Entry,
  KeyknoxV2Listed,
  KeyknoxV2Filter,
  KeyknoxV2Summary,
  KeyknoxRecord,
} from '../keyknox.js';
import { datesOf, type KeyknoxLine } from '../keyknox-record.js';
import { compareText } from '../../core/encoding.js';
import { SortedKeys } from '../sorted-keys.js';

/**
 * The parts of an address as one key whose code-point order is the parts' order, part by part:
 * each part ends in U+0000 U+0001 and a U+0000 in it is U+0000 U+FFFF, so a part sorts before
 * its longer ones and no two addresses share a key.
 */
const partsKey = (parts: readonly string[]): string =>
  parts.map((p) => `${p.replaceAll('\0', '\0\uffff')}\0\u0001`).join('');
export const v1Key = (a: KeyknoxV1Address): string => partsKey([a.app, a.identity]);
export const v2Key = (a: KeyknoxV2Address): string =>
  partsKey([a.app, a.owner, a.root, a.path, a.key]);

const sizeOf = (c: { meta: Uint8Array; value: Uint8Array }): number =>
  c.meta.byteLength + c.value.byteLength;

const byAddress = (a: KeyknoxV2Summary, b: KeyknoxV2Summary): number =>
  compareText(a.address.root, b.address.root) ||
  compareText(a.address.path, b.address.path) ||
  compareText(a.address.key, b.address.key);

export class MemoryKeyknoxStore implements KeyknoxStore {
  readonly #v1 = new Map<string, { address: KeyknoxV1Address; record: KeyknoxV1Record }>();
  readonly #v2 = new Map<string, KeyknoxV2Entry>();
  #v1Order = new SortedKeys();
  #v2Order = new SortedKeys();

  v1Get(address: KeyknoxV1Address): Promise<KeyknoxV1Record | undefined> {
    return Promise.resolve(structuredClone(this.#v1.get(v1Key(address))?.record));
  }

  v1Put(address: KeyknoxV1Address, next: KeyknoxV1Record, expected: number): Promise<boolean> {
    if (this.v1Revision(address) !== expected) return Promise.resolve(false);
    this.apply({ kind: 'keyknox1', address, record: next });
    return Promise.resolve(true);
  }

  v2Get(address: KeyknoxV2Address): Promise<KeyknoxV2Entry | undefined> {
    return Promise.resolve(structuredClone(this.#v2.get(v2Key(address))));
  }

  v2Put(next: KeyknoxV2Entry, expected: number): Promise<boolean> {
    if (this.v2Revision(next.address) !== expected) return Promise.resolve(false);
    this.apply({ kind: 'keyknox2', entry: next });
    return Promise.resolve(true);
  }

  v2Delete(address: KeyknoxV2Address, expected: number): Promise<boolean> {
    if (!this.#v2.has(v2Key(address)) || this.v2Revision(address) !== expected)
      return Promise.resolve(false);
    this.apply({ kind: 'keyknox2del', address });
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

  v1Page(after: KeyknoxV1Address | undefined, limit: number): Promise<KeyknoxV1Listed[]> {
    const keys = this.#v1Order.page('', after && v1Key(after), limit);
    return Promise.resolve(
      keys.map((key) => {
        const { address, record } = this.#v1.get(key)!;
        return {
          address: { ...address },
          version: record.version,
          hash: record.hash,
          size: sizeOf(record),
          ...datesOf(record),
        };
      }),
    );
  }

  v2Page(after: KeyknoxV2Address | undefined, limit: number): Promise<KeyknoxV2Listed[]> {
    const keys = this.#v2Order.page('', after && v2Key(after), limit);
    return Promise.resolve(
      keys.map((key) => {
        const entry = this.#v2.get(key)!;
        return {
          address: { ...entry.address },
          readers: entry.readers.map((r) => r.identity),
          hash: entry.hash,
          size: sizeOf(entry.copies[0]!),
          ...datesOf(entry),
        };
      }),
    );
  }

  /** The stored revision of a v1 blob (0: none), read at once (the JSON engine's check). */
  v1Revision(address: KeyknoxV1Address): number {
    return this.#v1.get(v1Key(address))?.record.revision ?? 0;
  }

  v2Revision(address: KeyknoxV2Address): number {
    return this.#v2.get(v2Key(address))?.revision ?? 0;
  }

  /** Stores a record whole, unchecked (a replayed or imported line, a write already decided). */
  apply(line: KeyknoxLine): void {
    if (line.kind === 'keyknox1') {
      const key = v1Key(line.address);
      if (!this.#v1.has(key)) this.#v1Order.add(key);
      this.#v1.set(key, structuredClone({ address: line.address, record: line.record }));
    } else if (line.kind === 'keyknox2') {
      const key = v2Key(line.entry.address);
      if (!this.#v2.has(key)) this.#v2Order.add(key);
      this.#v2.set(key, structuredClone(line.entry));
    } else if (this.#v2.delete(v2Key(line.address))) this.#v2Order.delete(v2Key(line.address));
  }

  /** Every record held, as lines (snapshots, export). */
  *lines(): Generator<KeyknoxRecord> {
    for (const { address, record } of this.#v1.values())
      yield { kind: 'keyknox1', address, record };
    for (const entry of this.#v2.values()) yield { kind: 'keyknox2', entry };
  }

  async *records(): AsyncGenerator<KeyknoxRecord> {
    for (const line of this.lines()) yield structuredClone(line);
  }

  get counts(): { readonly v1: number; readonly v2: number } {
    return { v1: this.#v1.size, v2: this.#v2.size };
  }

  reset(): Promise<void> {
    this.#v1.clear();
    this.#v2.clear();
    this.#v1Order = new SortedKeys();
    this.#v2Order = new SortedKeys();
    return Promise.resolve();
  }
}

/**
 * What an engine keeps for Keyknox, and the small contract it keeps it under: read, write if
 * unchanged (compare-and-swap on a revision), delete if unchanged, list. The rules over it
 * (versions, hashes, conflicts, readers) are src/registry/keyknox-*.ts; an engine stores and
 * returns records whole and opaque, and never decrypts or interprets `meta`/`value`.
 *
 * Every write names the revision it replaces (0: nothing stored), and an engine applies it
 * only if that is still the stored one: of two racing writes from the same state exactly one
 * lands, the other gets `false` and is decided again by the rules on what is now stored.
 */

/**
 * When a blob or entry was first stored and last written (a push, a reset, a reader removed),
 * ms since the epoch, as the rules' clock said: kept by every engine, never on the wire.
 * Absent from a record a dump line carries without them (keyknox-record.ts).
 */
export interface KeyknoxDates {
  readonly created?: number;
  readonly updated?: number;
}

/** Keyknox v1: one blob per (app, identity). */
export interface KeyknoxV1Address {
  readonly app: string;
  readonly identity: string;
}

export interface KeyknoxV1Record extends KeyknoxDates {
  /** Empty after a reset (the client decrypts the empty pair as "no entries"). */
  readonly meta: Uint8Array;
  readonly value: Uint8Array;
  /** n of the wire's "n.0": 1 at the first push, one more at each push or reset. */
  readonly version: number;
  /** The wire hash (base64), new at every push and reset. */
  readonly hash: string;
  /** The engine's compare-and-swap counter: 1 at the first write, one more at each. */
  readonly revision: number;
}

/** Keyknox v2: entries by (app, owner, root, path, key). */
export interface KeyknoxV2Address {
  readonly app: string;
  readonly owner: string;
  readonly root: string;
  readonly path: string;
  readonly key: string;
}

/** One pushed `meta`/`value` pair. */
export interface KeyknoxCopy {
  readonly meta: Uint8Array;
  readonly value: Uint8Array;
}

export interface KeyknoxReader {
  readonly identity: string;
  /** Index into the entry's `copies`: the copy of the last push that named this reader. */
  readonly copy: number;
}

export interface KeyknoxV2Entry extends KeyknoxDates {
  readonly address: KeyknoxV2Address;
  /** `copies[0]` is the last push (the owner's copy); older ones only while a reader has one. */
  readonly copies: readonly KeyknoxCopy[];
  /** Every identity a push named, in the order first named. */
  readonly readers: readonly KeyknoxReader[];
  readonly hash: string;
  readonly revision: number;
}

/** An entry without its content: what listing keys and resets need. */
export interface KeyknoxV2Summary {
  readonly address: KeyknoxV2Address;
  readonly readers: readonly string[];
  readonly revision: number;
}

/** A blob without its content, as the admin listing shows it. */
export interface KeyknoxV1Listed extends KeyknoxDates {
  readonly address: KeyknoxV1Address;
  readonly version: number;
  readonly hash: string;
  /** Bytes of `meta` and `value`. */
  readonly size: number;
}

/** An entry without its content, as the admin listing shows it. */
export interface KeyknoxV2Listed extends KeyknoxDates {
  readonly address: KeyknoxV2Address;
  readonly readers: readonly string[];
  readonly hash: string;
  /** Bytes of the owner's copy (`copies[0]`): `meta` and `value`. */
  readonly size: number;
}

/** Which entries of one owner: all of an app's, one root's, or one path's. */
export interface KeyknoxV2Filter {
  readonly app: string;
  readonly owner: string;
  readonly root?: string;
  /** Only with `root`. */
  readonly path?: string;
}

/** One stored blob or entry, as an export carries it. */
export type KeyknoxRecord =
  | {
      readonly kind: 'keyknox1';
      readonly address: KeyknoxV1Address;
      readonly record: KeyknoxV1Record;
    }
  | { readonly kind: 'keyknox2'; readonly entry: KeyknoxV2Entry };

export interface KeyknoxStore {
  v1Get(address: KeyknoxV1Address): Promise<KeyknoxV1Record | undefined>;
  /** Stores `next` if the stored revision is `expected` (0: none stored); `false` if it moved. */
  v1Put(address: KeyknoxV1Address, next: KeyknoxV1Record, expected: number): Promise<boolean>;
  v2Get(address: KeyknoxV2Address): Promise<KeyknoxV2Entry | undefined>;
  /** Stores `next` if the stored revision at its address is `expected` (0: none stored). */
  v2Put(next: KeyknoxV2Entry, expected: number): Promise<boolean>;
  /** Deletes the entry if its stored revision is `expected`; `false` if it moved or is gone. */
  v2Delete(address: KeyknoxV2Address, expected: number): Promise<boolean>;
  /** Summaries of the matching entries, ordered by root, path, then key (code points). */
  v2List(filter: KeyknoxV2Filter): Promise<KeyknoxV2Summary[]>;
  /**
   * Blobs of every app, ordered by app then identity, from the first after `after` (none: from
   * the first), at most `limit`: a range of the engine's order (an index, a sorted key list),
   * never a walk over every blob. Each part compares as v2List's keys do.
   */
  v1Page(after: KeyknoxV1Address | undefined, limit: number): Promise<KeyknoxV1Listed[]>;
  /** Entries of every app, ordered by app, owner, root, path, then key, as v1Page. */
  v2Page(after: KeyknoxV2Address | undefined, limit: number): Promise<KeyknoxV2Listed[]>;
  /**
   * Every blob, then every entry, of every app (`cards export`): whole records, as the
   * `keyknox1`/`keyknox2` lines of keyknox-record.ts write them.
   */
  records(): AsyncIterable<KeyknoxRecord>;
  /** Empties every blob and entry (`cards reset`), durably. */
  reset(): Promise<void>;
}

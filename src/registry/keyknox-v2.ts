/**
 * Keyknox v2: entries addressed by (app, owner, root, path, key) with readers — e3kit's named
 * key backups (root "e3kit", path "backup") and group-session tickets (root "group-sessions",
 * path <session id>, key <epoch>). The owner is always the token's identity; `identity` in a
 * pull or keys request names whose entries to read. A push adds readers, never removes one, and
 * each reader keeps the copy of the last push that named it (the owner re-encrypts a ticket for
 * new members only; the members already there must still decrypt theirs). A caller who may not
 * read an entry is answered as if it were absent; never its content. Each write dates the entry
 * (store/keyknox.ts `KeyknoxDates`): created at the push that stores it where none is, updated at
 * every push and reader removed. An entry keeps at most LIMITS.keyknoxEntryMax bytes over all
 * its copies: a push that would keep more is refused, and the entry stays as it was.
 */
import { CardsError } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import type {
  KeyknoxCopy,
  KeyknoxReader,
  KeyknoxStore,
  KeyknoxV2Address,
  KeyknoxV2Entry,
} from '../store/keyknox.js';
import { ABSENT_HASH, checkPrevious, datesAfter, newHash, untilWritten } from './keyknox-common.js';
import {
  checkAddressSize,
  type V2Keys,
  type V2Pull,
  type V2Push,
  type V2Reset,
} from './keyknox-input.js';

/** The entry object of pull, push and reset answers, and its hash header. */
export interface KeyknoxV2Answer extends KeyknoxCopy {
  readonly owner: string;
  readonly root: string;
  readonly path: string;
  readonly key: string;
  /** The whole reader set. */
  readonly identities: readonly string[];
  readonly hash: string;
}

const EMPTY = new Uint8Array(0);

/** What an absent entry (or one the caller may not read) answers at the asked address. */
const absent = (a: {
  owner: string;
  root?: string;
  path?: string;
  key?: string;
}): KeyknoxV2Answer => ({
  owner: a.owner,
  root: a.root ?? '',
  path: a.path ?? '',
  key: a.key ?? '',
  identities: [],
  meta: EMPTY,
  value: EMPTY,
  hash: ABSENT_HASH,
});

/** The caller's view of an entry: the owner's copy, a reader's own, or none. */
function view(entry: KeyknoxV2Entry, caller: string): KeyknoxV2Answer | undefined {
  const { owner, root, path, key } = entry.address;
  const index = caller === owner ? 0 : entry.readers.find((r) => r.identity === caller)?.copy;
  const copy = index === undefined ? undefined : entry.copies[index];
  if (copy === undefined) return undefined;
  const identities = entry.readers.map((r) => r.identity);
  return {
    owner,
    root,
    path,
    key,
    identities,
    meta: copy.meta,
    value: copy.value,
    hash: entry.hash,
  };
}

const mayRead = (caller: string, owner: string, readers: readonly string[]): boolean =>
  caller === owner || readers.includes(caller);

/**
 * The bounds of every entry, pushed or imported: at most LIMITS.keyknoxReadersMax readers and
 * LIMITS.keyknoxEntryMax bytes of `meta` and `value` over its copies (each reader keeps the copy
 * pushed when it was named, so without the bound one client grows one entry a copy at a time).
 */
export function checkEntryBounds(entry: Pick<KeyknoxV2Entry, 'copies' | 'readers'>): void {
  if (entry.readers.length > LIMITS.keyknoxReadersMax)
    throw new CardsError(
      'KEYKNOX_IDENTITIES_INVALID',
      `An entry has at most ${LIMITS.keyknoxReadersMax} readers, not ${entry.readers.length}.`,
    );
  const size = entry.copies.reduce((n, c) => n + c.meta.byteLength + c.value.byteLength, 0);
  if (size > LIMITS.keyknoxEntryMax)
    throw new CardsError(
      'KEYKNOX_ENTRY_TOO_LARGE',
      `The entry would keep ${size} bytes over its readers' copies; at most ${LIMITS.keyknoxEntryMax}.`,
      { hint: 'reset the entry, or push one copy for all its readers' },
    );
}

/** Drops the copies no one holds any more (the owner's, first, always stays). */
function compact(copies: readonly KeyknoxCopy[], readers: readonly KeyknoxReader[]) {
  const keep = new Map<number, number>([[0, 0]]);
  for (const r of readers) if (!keep.has(r.copy)) keep.set(r.copy, keep.size);
  const kept = [...keep.keys()].map((i) => copies[i]!);
  return {
    copies: kept,
    readers: readers.map((r) => ({ identity: r.identity, copy: keep.get(r.copy)! })),
  };
}

export class KeyknoxV2 {
  readonly #store: KeyknoxStore;
  readonly #clock: () => number;

  /** `clock`: ms since the epoch, for the entries' dates. */
  constructor(store: KeyknoxStore, clock: () => number = Date.now) {
    this.#store = store;
    this.#clock = clock;
  }

  async pull(app: string, caller: string, request: V2Pull): Promise<KeyknoxV2Answer> {
    const address = {
      app,
      owner: request.identity ?? caller,
      root: request.root,
      path: request.path,
      key: request.key,
    };
    const entry = await this.#store.v2Get(address);
    return (entry && view(entry, caller)) ?? absent(address);
  }

  /** Writes the caller's entry: new content, the listed readers added with this copy. */
  push(
    app: string,
    caller: string,
    request: V2Push,
    previous: string | undefined,
  ): Promise<KeyknoxV2Answer> {
    const address: KeyknoxV2Address = {
      app,
      owner: caller,
      root: request.root,
      path: request.path,
      key: request.key,
    };
    checkAddressSize(Object.values(address));
    return untilWritten(async () => {
      const current = await this.#store.v2Get(address);
      checkPrevious(
        { hash: current?.hash ?? ABSENT_HASH, occupied: current !== undefined },
        previous,
      );
      const named = new Set(request.identities);
      // The new copy goes first: every earlier copy moves one place down.
      const readers: KeyknoxReader[] = (current?.readers ?? []).map((r) => ({
        identity: r.identity,
        copy: named.has(r.identity) ? 0 : r.copy + 1,
      }));
      const known = new Set(readers.map((r) => r.identity));
      for (const identity of named) {
        if (known.has(identity)) continue;
        known.add(identity);
        readers.push({ identity, copy: 0 });
      }
      const kept = compact(
        [{ meta: request.meta, value: request.value }, ...(current?.copies ?? [])],
        readers,
      );
      checkEntryBounds(kept);
      const next: KeyknoxV2Entry = {
        address,
        ...kept,
        hash: newHash(),
        revision: (current?.revision ?? 0) + 1,
        ...datesAfter(current, this.#clock()),
      };
      if (!(await this.#store.v2Put(next, current?.revision ?? 0))) return undefined;
      return view(next, caller);
    });
  }

  /** The keys of `identity`'s (default: the caller's) entries the caller may read. */
  async keys(app: string, caller: string, request: V2Keys): Promise<string[]> {
    const owner = request.identity ?? caller;
    const entries = await this.#store.v2List({ app, owner, ...filterOf(request) });
    const keys = entries.filter((e) => mayRead(caller, owner, e.readers)).map((e) => e.address.key);
    return [...new Set(keys)];
  }

  /**
   * Without `identity`, or with the caller's: deletes the caller's matching entries. With
   * another identity: removes that reader from them, leaving content and hash as they are (an
   * owner re-adding a reader pushes with the hash it pulled before the removal).
   */
  async reset(app: string, caller: string, request: V2Reset): Promise<KeyknoxV2Answer> {
    const asked = { owner: caller, ...request };
    const matching = (
      await this.#store.v2List({ app, owner: caller, ...filterOf(request) })
    ).filter((e) => request.key === undefined || e.address.key === request.key);
    const reader =
      request.identity === undefined || request.identity === caller ? undefined : request.identity;
    let last: KeyknoxV2Answer | undefined;
    for (const { address } of matching) {
      last = await untilWritten(async () => {
        const current = await this.#store.v2Get(address);
        if (current === undefined) return absent(asked);
        if (reader === undefined)
          return (await this.#store.v2Delete(address, current.revision))
            ? absent(asked)
            : undefined;
        if (!current.readers.some((r) => r.identity === reader)) return view(current, caller)!;
        const next: KeyknoxV2Entry = {
          ...current,
          ...compact(
            current.copies,
            current.readers.filter((r) => r.identity !== reader),
          ),
          revision: current.revision + 1,
          ...datesAfter(current, this.#clock()),
        };
        return (await this.#store.v2Put(next, current.revision)) ? view(next, caller) : undefined;
      });
    }
    // One entry named by its key answers as that entry; any other reset as the address asked.
    return matching.length === 1 && request.key !== undefined && last ? last : absent(asked);
  }
}

const filterOf = (r: V2Keys): { root?: string; path?: string } => ({
  ...(r.root === undefined ? {} : { root: r.root }),
  ...(r.path === undefined ? {} : { path: r.path }),
});

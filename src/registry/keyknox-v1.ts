/**
 * Keyknox v1: one encrypted blob per (app, identity) — e3kit's password-protected private-key
 * backup. Pull, push with the previous hash, reset; versions "n.0"; the hash of every answer.
 * The server stores `meta`/`value` as sent and never decrypts them. Each write dates the blob
 * (store/keyknox.ts `KeyknoxDates`): created at its first push, updated at every push and reset.
 */
import type {
  KeyknoxCopy,
  KeyknoxStore,
  KeyknoxV1Address,
  KeyknoxV1Record,
} from '../store/keyknox.js';
import {
  ABSENT_HASH,
  checkPrevious,
  datesAfter,
  newHash,
  untilWritten,
  versionString,
} from './keyknox-common.js';
import { checkAddressSize } from './keyknox-input.js';

export interface KeyknoxV1Answer extends KeyknoxCopy {
  /** "n.0". */
  readonly version: string;
  /** Sent as `Virgil-Keyknox-Hash` with every answer, the empty ones included. */
  readonly hash: string;
}

const EMPTY = new Uint8Array(0);

/** Nothing ever stored: empty pair, "1.0" and the absent hash (never a 404). */
const NOTHING: KeyknoxV1Answer = { meta: EMPTY, value: EMPTY, version: '1.0', hash: ABSENT_HASH };

const answerOf = (record: KeyknoxV1Record): KeyknoxV1Answer => ({
  meta: record.meta,
  value: record.value,
  version: versionString(record.version),
  hash: record.hash,
});

export class KeyknoxV1 {
  readonly #store: KeyknoxStore;
  readonly #clock: () => number;

  /** `clock`: ms since the epoch, for the blob's dates. */
  constructor(store: KeyknoxStore, clock: () => number = Date.now) {
    this.#store = store;
    this.#clock = clock;
  }

  async pull(address: KeyknoxV1Address): Promise<KeyknoxV1Answer> {
    const record = await this.#store.v1Get(address);
    return record === undefined ? NOTHING : answerOf(record);
  }

  /**
   * Stores `copy` as the blob, if `previous` is the current hash (or is absent while the blob
   * is empty: never stored, or reset). The version goes up by one; the hash is new.
   */
  push(
    address: KeyknoxV1Address,
    copy: KeyknoxCopy,
    previous: string | undefined,
  ): Promise<KeyknoxV1Answer> {
    checkAddressSize([address.app, address.identity]);
    return untilWritten(async () => {
      const current = await this.#store.v1Get(address);
      checkPrevious(
        {
          hash: current?.hash ?? ABSENT_HASH,
          occupied: current !== undefined && current.value.byteLength > 0,
        },
        previous,
      );
      const next = {
        meta: copy.meta,
        value: copy.value,
        version: current === undefined ? 1 : current.version + 1,
        hash: newHash(),
        revision: (current?.revision ?? 0) + 1,
        ...datesAfter(current, this.#clock()),
      };
      if (!(await this.#store.v1Put(address, next, current?.revision ?? 0))) return undefined;
      return answerOf(next);
    });
  }

  /** Empties the blob (version up by one, new hash); with nothing stored, stores nothing. */
  reset(address: KeyknoxV1Address): Promise<KeyknoxV1Answer> {
    return untilWritten(async () => {
      const current = await this.#store.v1Get(address);
      if (current === undefined) return NOTHING;
      const next = {
        meta: EMPTY,
        value: EMPTY,
        version: current.version + 1,
        hash: newHash(),
        revision: current.revision + 1,
        ...datesAfter(current, this.#clock()),
      };
      if (!(await this.#store.v1Put(address, next, current.revision))) return undefined;
      return answerOf(next);
    });
  }
}

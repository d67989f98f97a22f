/**
 * The JSON engine's Keyknox entries: held in memory (../memory/keyknox-store.ts) and kept in one
 * file beside the store (paths.ts `keyknox`): a header line, a snapshot of every record, then
 * one line per write since (keyknox-record.ts; last line of an address wins).
 *
 * - A write is acknowledged only after its line is written and fdatasync'ed; writes arriving
 *   while one is in flight go together in the next (group commit). An acknowledged write
 *   survives kill -9 and power loss.
 * - The compare-and-swap is decided in memory when the write is queued, against the revision
 *   the queued writes will leave (one process holds the store's lock, so memory is the truth).
 *   A read of an address with a write queued waits for that write, so nothing unacknowledged
 *   is ever answered, and a write decided on what it read cannot land over a queued one.
 * - A failed write is cut back off the file and refused; the records in memory are unchanged.
 * - On open the file is read (a torn tail, the trace of a crash mid-write, is dropped: it was
 *   never acknowledged; damage followed by a good line, or a whole line of JSON that is not a
 *   record this version reads, is STORE_CORRUPT, the file untouched)
 *   and rewritten as a snapshot unless it is one already (a start after a clean close writes
 *   nothing); rewritten on close too, and whenever the writes since the last snapshot outgrow
 *   it.
 */
import { open, stat, type FileHandle } from 'node:fs/promises';
import { CardsError } from '../../core/errors.js';
import { replaceFile } from '../../io/fs-durable.js';
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
import { keyknoxLineText, readKeyknoxLine, type KeyknoxLine } from '../keyknox-record.js';
import { MemoryKeyknoxStore, v1Key, v2Key } from '../memory/keyknox-store.js';
import { readLines } from './line-reader.js';
import { unavailable } from './unavailable.js';

export const KEYKNOX_HEADER = '{"format":"cards-keyknox","version":1}';

/** Rewrite the file once the writes since the snapshot exceed max(this, the snapshot). */
const COMPACT_BYTES = 1 << 20;

interface Queued {
  readonly key: string;
  readonly line: KeyknoxLine;
  readonly text: string;
  readonly done: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

export class KeyknoxFile implements KeyknoxStore {
  readonly #path: string;
  readonly #held = new MemoryKeyknoxStore();
  /** The last queued write of each address not yet on disk, and the revision it leaves. */
  readonly #pending = new Map<string, { queued: Queued; revision: number }>();
  #queue: Queued[] = [];
  #flushing: Promise<void> | undefined;
  #handle: FileHandle | undefined;
  #bytes = 0;
  #snapshotBytes = 0;
  #closed = false;

  private constructor(path: string) {
    this.#path = path;
  }

  /**
   * Reads the file at `path` (absent: nothing stored) and rewrites it as a snapshot, unless it
   * is one already: every line after the header a record of its own (none replaced or deleted by
   * a later line), nothing torn, readable by this process's user alone.
   */
  static async open(path: string, warn: (message: string) => void): Promise<KeyknoxFile> {
    const file = new KeyknoxFile(path);
    let damage: string | undefined;
    let dropped = 0;
    let applied = 0;
    let first = true;
    for await (const lines of readLines(path)) {
      for (const line of lines) {
        if (first) {
          first = false;
          if (line.text !== KEYKNOX_HEADER)
            throw new CardsError(
              'STORE_CORRUPT',
              `${path} is not a Keyknox file this version reads (its first line is not ${KEYKNOX_HEADER}).`,
            );
          continue;
        }
        if (damage !== undefined) {
          if (line.text.trim() === '' || !line.terminated) {
            dropped++;
            continue;
          }
          throw new CardsError('STORE_CORRUPT', `The Keyknox file ${path}: ${damage}`);
        }
        let parsed: unknown;
        try {
          if (!line.terminated) throw new Error('cut short');
          parsed = JSON.parse(line.text);
        } catch (err) {
          damage = `line ${line.number} is damaged (${(err as Error).message})`;
          dropped++;
          continue;
        }
        // A whole line of JSON is no torn write (a write cut short ends before its line break):
        // a record this version cannot read is damage wherever it is, never dropped as torn.
        file.#held.apply(readKeyknoxLine(parsed, `The Keyknox file ${path}, line ${line.number}`));
        applied++;
      }
    }
    if (dropped > 0)
      warn(
        `The Keyknox file ${path} ended in a torn write (a crash mid-write): ${dropped} line(s) never acknowledged were dropped.`,
      );
    const { v1, v2 } = file.#held.counts;
    const found = first ? undefined : await stat(path);
    if (found && dropped === 0 && applied === v1 + v2 && (found.mode & 0o077) === 0) {
      file.#bytes = found.size;
      file.#snapshotBytes = found.size;
    } else await file.#snapshot();
    return file;
  }

  async v1Get(address: KeyknoxV1Address): Promise<KeyknoxV1Record | undefined> {
    await this.#settled(`1${v1Key(address)}`);
    return this.#held.v1Get(address);
  }

  v1Put(address: KeyknoxV1Address, next: KeyknoxV1Record, expected: number): Promise<boolean> {
    const key = `1${v1Key(address)}`;
    const current = this.#pending.get(key)?.revision ?? this.#held.v1Revision(address);
    if (current !== expected) return Promise.resolve(false);
    return this.#write(key, { kind: 'keyknox1', address, record: next }, next.revision);
  }

  async v2Get(address: KeyknoxV2Address): Promise<KeyknoxV2Entry | undefined> {
    await this.#settled(`2${v2Key(address)}`);
    return this.#held.v2Get(address);
  }

  v2Put(next: KeyknoxV2Entry, expected: number): Promise<boolean> {
    const key = `2${v2Key(next.address)}`;
    const current = this.#pending.get(key)?.revision ?? this.#held.v2Revision(next.address);
    if (current !== expected) return Promise.resolve(false);
    return this.#write(key, { kind: 'keyknox2', entry: next }, next.revision);
  }

  v2Delete(address: KeyknoxV2Address, expected: number): Promise<boolean> {
    const key = `2${v2Key(address)}`;
    const current = this.#pending.get(key)?.revision ?? this.#held.v2Revision(address);
    if (current === 0 || current !== expected) return Promise.resolve(false);
    return this.#write(key, { kind: 'keyknox2del', address }, 0);
  }

  async v2List(filter: KeyknoxV2Filter): Promise<KeyknoxV2Summary[]> {
    await this.#allSettled();
    return this.#held.v2List(filter);
  }

  async v1Page(after: KeyknoxV1Address | undefined, limit: number): Promise<KeyknoxV1Listed[]> {
    await this.#allSettled();
    return this.#held.v1Page(after, limit);
  }

  async v2Page(after: KeyknoxV2Address | undefined, limit: number): Promise<KeyknoxV2Listed[]> {
    await this.#allSettled();
    return this.#held.v2Page(after, limit);
  }

  /** Every record, once the writes queued before the call are on disk. */
  async *records(): AsyncGenerator<KeyknoxRecord> {
    await this.#allSettled();
    yield* this.#held.records();
  }

  get counts(): { readonly v1: number; readonly v2: number } {
    return this.#held.counts;
  }

  /**
   * Empties the file: a snapshot of nothing, written atomically, then the records held. A reset
   * the file refuses (a full disk) leaves both as they were, so what is answered is what a
   * restart reads.
   */
  reset(): Promise<void> {
    return this.#alone(async () => {
      await this.#snapshot([]);
      await this.#held.reset();
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#alone(() => this.#snapshot());
    } finally {
      await this.#handle?.close().catch(() => undefined);
      this.#handle = undefined;
    }
  }

  /** Runs `task` with no write in flight, writes queued meanwhile waiting for it. */
  async #alone(task: () => Promise<void>): Promise<void> {
    while (this.#flushing) await this.#flushing;
    const run = task();
    this.#flushing = run.then(
      () => undefined,
      () => undefined,
    );
    try {
      await run;
    } finally {
      this.#flushing = undefined;
      if (this.#queue.length > 0) this.#startFlush();
    }
  }

  #startFlush(): void {
    this.#flushing ??= this.#flushLoop().finally(() => (this.#flushing = undefined));
  }

  /** Waits for the writes queued before the call (a listing answers nothing unacknowledged). */
  async #allSettled(): Promise<void> {
    await Promise.all([...this.#pending.values()].map((p) => p.queued.done.catch(() => undefined)));
  }

  async #settled(key: string): Promise<void> {
    for (let p = this.#pending.get(key); p; p = this.#pending.get(key))
      await p.queued.done.catch(() => undefined);
  }

  #write(key: string, line: KeyknoxLine, revision: number): Promise<boolean> {
    if (this.#closed)
      return Promise.reject(new CardsError('STORE_UNAVAILABLE', 'The store is closing.'));
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const queued: Queued = { key, line, text: `${keyknoxLineText(line)}\n`, done, resolve, reject };
    this.#pending.set(key, { queued, revision });
    this.#queue.push(queued);
    this.#startFlush();
    return done.then(() => true);
  }

  /** Writes queued lines in batches, one write + fdatasync each, until the queue is empty. */
  async #flushLoop(): Promise<void> {
    for (let batch = this.#queue; batch.length > 0; batch = this.#queue) {
      this.#queue = [];
      let failure: unknown;
      try {
        await this.#append(batch.map((q) => q.text).join(''));
        for (const q of batch) this.#held.apply(q.line);
      } catch (err) {
        failure = err;
      }
      for (const q of batch) {
        if (this.#pending.get(q.key)?.queued === q) this.#pending.delete(q.key);
        if (failure === undefined) q.resolve();
        else q.reject(failure);
      }
      if (this.#bytes - this.#snapshotBytes > Math.max(COMPACT_BYTES, this.#snapshotBytes))
        await this.#snapshot().catch(() => undefined);
    }
  }

  /** One durable append; a failed one is cut back off, so no refused line survives a restart. */
  async #append(text: string): Promise<void> {
    const buffer = Buffer.from(text, 'utf8');
    try {
      this.#handle ??= await open(this.#path, 'a', 0o600);
      await this.#handle.writeFile(buffer);
      await this.#handle.datasync();
      this.#bytes += buffer.byteLength;
    } catch (err) {
      const handle = this.#handle;
      this.#handle = undefined;
      await handle
        ?.truncate(this.#bytes)
        .then(() => handle.sync())
        .catch(() => undefined);
      await handle?.close().catch(() => undefined);
      throw unavailable(`Cannot write the Keyknox file ${this.#path}`, err);
    }
  }

  /** Replaces the file by the header and `lines` (every record held; atomically, durably). */
  async #snapshot(lines: Iterable<KeyknoxLine> = this.#held.lines()): Promise<void> {
    const chunks = function* () {
      yield `${KEYKNOX_HEADER}\n`;
      for (const line of lines) yield `${keyknoxLineText(line)}\n`;
    };
    try {
      const bytes = await replaceFile(this.#path, chunks(), 0o600);
      const old = this.#handle;
      this.#handle = undefined;
      await old?.close().catch(() => undefined);
      this.#bytes = bytes;
      this.#snapshotBytes = bytes;
    } catch (err) {
      throw unavailable(`Cannot write the Keyknox file ${this.#path}`, err);
    }
  }
}

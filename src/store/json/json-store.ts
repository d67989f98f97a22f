/**
 * The JSON-file store: one readable JSON file (store-file.ts) plus an append-only journal
 * beside it (paths.ts `journal`), one JSON line per card.
 *
 * - An append is acknowledged only after its line is written and fdatasync'ed. Appends that
 *   arrive while a write is in flight wait and go together in the next one (group commit), so
 *   16 clients share one fdatasync, and a write never costs time proportional to the store.
 * - On open the journal is replayed onto the file's cards (a torn last line, the trace of a
 *   crash mid-write, is ignored; a card already in the file is skipped) and folded into the
 *   file atomically; the same happens on close, and in the background whenever the journal
 *   outgrows the file (then only the cards written since are kept in a fresh journal).
 * - A failed write is cut back off the journal, so nothing of it survives a restart.
 * - A corrupt or newer file is refused, never overwritten. One writer per store: the engine
 *   takes its lock (lock.ts) and checks it is none of its own companions before it opens it.
 */
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CardsError } from '../../core/errors.js';
import { cardIdOf } from '../../core/card-id.js';
import { decodeStoredBase64 } from '../../core/encoding.js';
import { FOLDER_MODE, fsyncDir, replaceFile } from '../../io/fs-durable.js';
import { CardIndex, type IndexedCard, type Reservation } from '../card-index.js';
import { batchText, journalText, JOURNAL_HEADER, replayJournal } from './journal.js';
import { storePaths, type StorePaths } from './paths.js';
import { DEFAULT_COMPACT_BYTES } from '../defaults.js';
import { serializeCard } from '../record.js';
import { StoreFile } from './store-file.js';
import { unavailable } from './unavailable.js';
import { IndexedStore } from '../indexed-store.js';
import type { CardEntry, StoreStats, StoredCard } from '../store.js';

export interface JsonStoreOptions {
  /** The store file (companions are found beside it through paths.ts). */
  readonly path: string;
  /** Fold the journal into the file once it exceeds max(this, the file's size). */
  readonly compactBytes?: number;
  /** Told about failures that do not fail a request (a background compaction). */
  readonly onWarning?: (message: string) => void;
}

interface Waiting {
  readonly reservation: Reservation;
  readonly line: string;
  readonly resolve: (entry: CardEntry) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * The background pass over the ids of the cards read from disk checks a slice of them after each
 * step of the event loop busy at most half the time, or after a second of busy steps: an idle
 * server checks 100,000 cards in about five seconds, a busy one (its start-up, its log catching
 * up, a load of creates) gives the pass about 1% of a core.
 */
const CHECK_SLICE = 2000;
const CHECK_IDLE = 0.5;
const CHECK_STEP_MS = 100;
const CHECK_WAIT_MS = 1000;

export class JsonStore extends IndexedStore {
  readonly paths: StorePaths;
  readonly #file: StoreFile;
  readonly #compactBytes: number;
  readonly #warn: (message: string) => void;
  #journal: FileHandle | undefined;
  #journalBytes = 0;
  /** A failed write may have left bytes past #journalBytes that are not durably cut off. */
  #dirty = false;
  #queue: Waiting[] = [];
  #flushing = false;
  #idle: (() => void)[] = [];
  #compaction: Promise<void> | undefined;
  #compactAt: number;
  /** After a background compaction: the journal keeps only records from this index on. */
  #resetFrom: number | undefined;
  /** How many records the main file holds. */
  #fileCards: number;
  #closing = false;
  #checking: Promise<void> | undefined;
  #checkTimer: NodeJS.Timeout | undefined;
  #checkWake: (() => void) | undefined;
  #resetting: Promise<void> | undefined;
  #stats = { appends: 0, flushes: 0, compactions: 0 };

  private constructor(
    paths: StorePaths,
    file: StoreFile,
    index: CardIndex,
    fileCards: number,
    options: JsonStoreOptions,
  ) {
    super();
    this.paths = paths;
    this.#file = file;
    this.index = index;
    this.#fileCards = fileCards;
    this.#compactBytes = options.compactBytes ?? DEFAULT_COMPACT_BYTES;
    this.#compactAt = Math.max(this.#compactBytes, file.bytes);
    this.#warn = options.onWarning ?? (() => undefined);
  }

  /** Reads the store, replays and folds the journal, opens the journal for appends. */
  static async open(options: JsonStoreOptions): Promise<JsonStore> {
    await mkdir(dirname(resolve(options.path)), { recursive: true, mode: FOLDER_MODE });
    const paths = storePaths(options.path);
    const file = new StoreFile(paths.store);
    // STORE_CORRUPT for a file it cannot read; none: a new store. Relations no registry could
    // have made refuse the store before anything is rewritten.
    const index = new CardIndex();
    index.load(await file.read(), paths.store, { checked: false });
    const fileCards = index.size;
    const replay = await replayJournal(paths.journal);
    // Cards already in the file were folded in before a crash that kept the journal.
    index.load(
      replay.cards.filter((card) => !index.get(card.id)),
      paths.journal,
      { checked: false },
    );
    if (replay.dropped > 0)
      options.onWarning?.(
        `The journal ${paths.journal} ended in a torn write (a crash or power loss mid-write): ${replay.dropped} line(s) of cards that were never acknowledged were dropped.`,
      );
    const store = new JsonStore(paths, file, index, fileCards, options);
    if (!file.found || replay.found) await store.#compactAll('start-up');
    await store.#openJournal();
    store.#checking = store.#checkAll();
    return store;
  }

  get location(): string {
    return this.paths.store;
  }

  /** Bytes of journaled cards (its header aside): 0 right after a fold. */
  get journalBytes(): number {
    return Math.max(0, this.#journalBytes - JOURNAL_HEADER.length - 1);
  }

  /**
   * A card read from disk is served only once its id is recomputed from its snapshot (a bit
   * flipped on disk must not be served under an id it no longer matches): checked on first
   * read, and by a background pass that runs in the process's idle time (CHECK_IDLE), so that
   * the server's start-up, its log catching up included, hashes next to nothing for it.
   */
  protected override seen(entry: IndexedCard): void {
    if (entry.checked) return;
    if (!idMatches(entry.card)) throw mismatch(entry, this.paths.store);
    entry.checked = true;
  }

  /** Resolves after a step of the event loop idle enough, after CHECK_WAIT_MS, or on close. */
  async #quietMoment(): Promise<void> {
    for (let waited = 0; waited < CHECK_WAIT_MS && !this.#closing; waited += CHECK_STEP_MS) {
      const since = performance.eventLoopUtilization();
      await new Promise<void>((resolve) => {
        this.#checkWake = resolve;
        this.#checkTimer = setTimeout(resolve, CHECK_STEP_MS).unref();
      });
      if (performance.eventLoopUtilization(since).utilization <= CHECK_IDLE) return;
    }
  }

  /** The background pass over every card read from disk, a slice at a time. */
  async #checkAll(): Promise<void> {
    const entries = this.index.entries;
    for (let start = 0; start < entries.length; start += CHECK_SLICE) {
      await this.#quietMoment();
      if (this.#closing) return;
      const end = Math.min(entries.length, start + CHECK_SLICE);
      for (let i = start; i < end; i++) {
        const entry = entries[i] as IndexedCard;
        if (entry.checked) continue;
        if (idMatches(entry.card)) entry.checked = true;
        else this.#warn(mismatch(entry, this.paths.store).message);
      }
    }
  }

  stats(): StoreStats {
    return { cards: this.index.size, ...this.#stats };
  }

  /**
   * Empties the store: waits for writes in flight, empties the journal, then replaces the file
   * by an empty store atomically. In that order, a crash in between leaves the file's cards (an
   * earlier, consistent state), never journal cards whose previous cards are gone.
   */
  reset(): Promise<void> {
    if (this.#closing)
      return Promise.reject(new CardsError('STORE_UNAVAILABLE', 'The store is closing.'));
    this.#resetting ??= (async () => {
      while (this.#flushing || this.#compaction || this.#queue.length > 0) {
        if (this.#flushing) await new Promise<void>((resolve) => this.#idle.push(resolve));
        else if (this.#compaction) await this.#compaction;
        else void this.#flushLoop();
      }
      try {
        if (!this.#journal) await this.#openJournal();
        // Back to its header line alone (openJournal and journalText always write it first).
        const headerBytes = JOURNAL_HEADER.length + 1;
        await this.#journal?.truncate(headerBytes);
        await this.#journal?.sync();
        this.#journalBytes = headerBytes;
        this.#dirty = false;
        this.#resetFrom = undefined;
      } catch (err) {
        throw unavailable(`Cannot empty the journal ${this.paths.journal}`, err);
      }
      this.index = new CardIndex();
      await this.#compactAll('reset');
    })().finally(() => (this.#resetting = undefined));
    return this.#resetting;
  }

  /** Reserves the card (the chain rules, card-index.ts), then queues its line for the journal. */
  insert(card: StoredCard): Promise<CardEntry> {
    if (this.#closing)
      return Promise.reject(new CardsError('STORE_UNAVAILABLE', 'The store is closing.'));
    if (this.#resetting) return this.#resetting.then(() => this.insert(card));
    let reservation: Reservation;
    try {
      reservation = this.index.reserve(card);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ reservation, line: `${serializeCard(card)}\n`, resolve, reject });
      if (!this.#flushing) void this.#flushLoop();
    });
  }

  async close(): Promise<void> {
    if (this.#closing) return;
    await this.#resetting?.catch(() => undefined);
    this.#closing = true;
    clearTimeout(this.#checkTimer);
    this.#checkWake?.();
    await this.#checking;
    while (this.#flushing || this.#compaction) {
      if (this.#flushing) await new Promise<void>((resolve) => this.#idle.push(resolve));
      if (this.#compaction) await this.#compaction;
    }
    try {
      // Folded in only when the journal holds a card or the file lacks one: a store that
      // nothing was written to is not rewritten.
      if (this.journalBytes > 0 || this.#fileCards !== this.index.size)
        await this.#compactAll('shut-down');
      await this.#journal?.close();
      this.#journal = undefined;
      await rm(this.paths.journal, { force: true });
      await fsyncDir(dirname(this.paths.journal));
    } finally {
      await this.#journal?.close().catch(() => undefined);
    }
  }

  /** Writes queued lines in batches, one write + fdatasync each, until the queue is empty. */
  async #flushLoop(): Promise<void> {
    this.#flushing = true;
    try {
      for (;;) {
        if (this.#resetFrom !== undefined) await this.#resetJournal();
        const batch = this.#queue;
        if (batch.length === 0) break;
        this.#queue = [];
        try {
          await this.#writeJournal(batchText(batch.map((entry) => entry.line)));
        } catch (err) {
          for (const entry of batch) {
            this.index.release(entry.reservation);
            entry.reject(err);
          }
          continue;
        }
        this.#stats.appends += batch.length;
        this.#stats.flushes++;
        // In queue order: the journal's order is the sequence.
        for (const entry of batch) entry.resolve(this.index.commit(entry.reservation));
        if (!this.#compaction && !this.#closing && this.#journalBytes > this.#compactAt)
          this.#compaction = this.#compactInBackground().finally(() => {
            this.#compaction = undefined;
          });
      }
    } finally {
      this.#flushing = false;
      for (const resolve of this.#idle.splice(0)) resolve();
    }
  }

  /**
   * One durable write of a batch. A failed write is cut back off the journal and the cut made
   * durable, so no line of a refused card survives a restart, even a power loss; when the cut
   * cannot be made durable the journal's state is unknown, and every write is refused with
   * STORE_READ_ONLY (503) until a retried cut succeeds (then writes resume by themselves).
   */
  async #writeJournal(text: string): Promise<void> {
    const buffer = Buffer.from(text, 'utf8');
    if (this.#dirty)
      try {
        await this.#repairJournal();
      } catch (err) {
        throw new CardsError('STORE_READ_ONLY', undefined, { cause: err });
      }
    try {
      if (!this.#journal) await this.#openJournal();
      const journal = this.#journal as FileHandle;
      await journal.writeFile(buffer);
      await journal.datasync();
      this.#journalBytes += buffer.byteLength;
    } catch (err) {
      this.#dirty = true;
      await this.#repairJournal().catch((cause: Error) =>
        this.#warn(
          `Cannot undo a failed write in ${this.paths.journal} (${cause.message}); refusing writes until it can.`,
        ),
      );
      throw unavailable(`Cannot write the journal ${this.paths.journal}`, err);
    }
  }

  /** Cuts the journal back to its acknowledged bytes and makes the cut durable. */
  async #repairJournal(): Promise<void> {
    const journal = this.#journal;
    if (!journal) {
      this.#dirty = false; // reopened (and its size read) on the next write
      return;
    }
    if ((await journal.stat()).size !== this.#journalBytes)
      await journal.truncate(this.#journalBytes);
    await journal.sync();
    this.#dirty = false;
  }

  async #openJournal(): Promise<void> {
    const handle = await open(this.paths.journal, 'a', 0o644);
    try {
      this.#journalBytes = (await handle.stat()).size;
      if (this.#journalBytes === 0) {
        const header = Buffer.from(`${JOURNAL_HEADER}\n`);
        await handle.write(header);
        await handle.datasync();
        this.#journalBytes = header.byteLength;
      }
      await fsyncDir(dirname(this.paths.journal));
    } catch (err) {
      await handle.close();
      throw err;
    }
    this.#journal = handle;
  }

  /** Writes every record to the main file (start-up, shut-down); the caller empties the journal. */
  async #compactAll(when: string): Promise<void> {
    const count = this.index.size;
    try {
      await this.#file.write(this.cards().slice(0, count));
    } catch (err) {
      throw unavailable(`Cannot write the store ${this.paths.store} at ${when}`, err);
    }
    this.#fileCards = count;
    this.#stats.compactions++;
    if (when === 'start-up') {
      await rm(this.paths.journal, { force: true });
      await fsyncDir(dirname(this.paths.journal));
    }
  }

  async #compactInBackground(): Promise<void> {
    const count = this.index.size;
    try {
      await this.#compactAll('compaction');
    } catch (err) {
      this.#compactAt = this.#journalBytes + Math.max(this.#compactBytes, this.#file.bytes);
      this.#warn(`${(err as Error).message} The journal keeps every card; will retry later.`);
      return;
    }
    this.#resetFrom = count;
    if (!this.#flushing) void this.#flushLoop();
  }

  /** Replaces the journal by one holding only the records the main file does not. */
  async #resetJournal(): Promise<void> {
    const from = this.#resetFrom as number;
    this.#resetFrom = undefined;
    const kept = this.index.entries.slice(from).map((entry) => entry.card);
    try {
      await replaceFile(this.paths.journal, [journalText(kept)]);
    } catch (err) {
      this.#warn(`Cannot shorten the journal (${(err as Error).message}); it keeps every card.`);
      return;
    }
    const old = this.#journal;
    this.#journal = undefined;
    this.#dirty = false;
    await old?.close().catch(() => undefined);
    // Reopened on the next write if this fails; the next batch then retries.
    await this.#openJournal().catch(() => undefined);
    this.#compactAt = Math.max(this.#compactBytes, this.#file.bytes) + this.#journalBytes;
  }
}

/** The id a card's snapshot hashes to, or undefined when the snapshot is not base64. */
function idOf(card: StoredCard): string | undefined {
  const bytes = decodeStoredBase64(card.content_snapshot);
  return bytes && cardIdOf(bytes);
}

const idMatches = (card: StoredCard): boolean => idOf(card) === card.id;

const mismatch = (entry: IndexedCard, store: string): CardsError =>
  new CardsError(
    'STORE_CORRUPT',
    `The store ${store} is damaged: card #${entry.seq + 1} (${entry.id}) holds a content snapshot whose id is ${idOf(entry.card) ?? 'not computable (not base64)'}; it is not served.`,
    { hint: 'Restore the file from a backup; the other cards are served.' },
  );

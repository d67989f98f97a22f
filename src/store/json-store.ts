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
 * - One server per store (lock.ts); a corrupt or newer file is refused, never overwritten.
 */
import { mkdir, open, readFile, rm, type FileHandle } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Low } from 'lowdb';
import { CardsError } from '../core/errors.js';
import { CardIndex, type Reservation } from './card-index.js';
import { fsyncDir, replaceFile } from './fs-durable.js';
import { acquireLock, type StoreLock } from './lock.js';
import { storePaths, type StorePaths } from './paths.js';
import { corrupt, readStoredCard, serializeCard } from './record.js';
import { STORE_FORMAT, STORE_VERSION, StoreFileAdapter, type StoreFileData } from './store-file.js';
import type {
  CardChain,
  CardEntry,
  CardStore,
  IdentityQuery,
  IdentitySummary,
  StoreStats,
  StoredCard,
} from './store.js';
import { parseStoredLine } from './stored-line.js';

export interface JsonStoreOptions {
  /** The store file (companions are found beside it through paths.ts). */
  readonly path: string;
  /** Fold the journal into the file once it exceeds max(this, the file's size). Default 16 MiB. */
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

const emptyData = (): StoreFileData => ({
  format: STORE_FORMAT,
  version: STORE_VERSION,
  cards: [],
});

const unavailable = (what: string, cause: unknown): CardsError =>
  new CardsError(
    'STORE_UNAVAILABLE',
    `${what}: ${(cause as NodeJS.ErrnoException).code ?? 'write failed'}.`,
    { cause },
  );

export class JsonStore implements CardStore {
  readonly engine = 'json';
  readonly paths: StorePaths;
  readonly #db: Low<StoreFileData>;
  readonly #file: StoreFileAdapter;
  readonly #lock: StoreLock;
  #index: CardIndex;
  readonly #compactBytes: number;
  readonly #warn: (message: string) => void;
  #journal: FileHandle | undefined;
  #journalBytes = 0;
  #mustTruncate = false;
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
  #resetting: Promise<void> | undefined;
  #stats = { appends: 0, flushes: 0, compactions: 0 };

  private constructor(
    paths: StorePaths,
    lock: StoreLock,
    db: Low<StoreFileData>,
    file: StoreFileAdapter,
    index: CardIndex,
    fileCards: number,
    options: JsonStoreOptions,
  ) {
    this.paths = paths;
    this.#lock = lock;
    this.#file = file;
    this.#db = db;
    this.#index = index;
    this.#fileCards = fileCards;
    this.#compactBytes = options.compactBytes ?? 16 * 1024 * 1024;
    this.#compactAt = Math.max(this.#compactBytes, file.bytes);
    this.#warn = options.onWarning ?? (() => undefined);
  }

  /** Locks the store, reads it, replays and folds the journal, opens the journal for appends. */
  static async open(options: JsonStoreOptions): Promise<JsonStore> {
    await mkdir(dirname(resolve(options.path)), { recursive: true });
    const paths = storePaths(options.path);
    const lock = await acquireLock(paths.lock, paths.store);
    try {
      const file = new StoreFileAdapter(paths.store);
      const db = new Low(file, emptyData());
      await db.read(); // STORE_CORRUPT for a file it cannot read; no file: the empty default
      const records = db.data.cards as StoredCard[];
      const fileCards = records.length;
      const journalBytes = await replayJournal(paths.journal, records);
      // Relations no registry could have made refuse the store before anything is rewritten.
      const index = new CardIndex();
      index.load(records, paths.store);
      db.data = emptyData();
      const store = new JsonStore(paths, lock, db, file, index, fileCards, options);
      if (!file.found || journalBytes > 0) await store.#compactAll('start-up');
      await store.#openJournal();
      return store;
    } catch (err) {
      await lock.release();
      throw err;
    }
  }

  get location(): string {
    return this.paths.store;
  }

  get journalBytes(): number {
    return this.#journalBytes;
  }

  /** Every durable card, in insertion order. */
  cards(): StoredCard[] {
    return this.#index.entries.map((entry) => entry.card);
  }

  async getCard(id: string): Promise<CardEntry | undefined> {
    return this.#index.get(id);
  }

  async lastOfChain(id: string): Promise<CardEntry | undefined> {
    return this.#index.get(id)?.chain.last;
  }

  async chainsOf(identities: readonly string[]): Promise<CardChain[]> {
    return [...new Set(identities)].flatMap((identity) => this.#index.chainsOf(identity));
  }

  async count(): Promise<number> {
    return this.#index.size;
  }

  stats(): StoreStats {
    return { cards: this.#index.size, ...this.#stats };
  }

  async listCards(afterSeq: number | undefined, limit: number): Promise<CardEntry[]> {
    return this.#index.list(afterSeq, limit);
  }

  async listIdentities(query: IdentityQuery): Promise<IdentitySummary[]> {
    return this.#index.identities(query);
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
        await this.#journal?.truncate(0);
        await this.#journal?.datasync();
        this.#journalBytes = 0;
        this.#mustTruncate = false;
        this.#resetFrom = undefined;
      } catch (err) {
        throw unavailable(`Cannot empty the journal ${this.paths.journal}`, err);
      }
      this.#index = new CardIndex();
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
      reservation = this.#index.reserve(card);
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
    while (this.#flushing || this.#compaction) {
      if (this.#flushing) await new Promise<void>((resolve) => this.#idle.push(resolve));
      if (this.#compaction) await this.#compaction;
    }
    try {
      if (this.#journalBytes > 0 || this.#fileCards !== this.#index.size)
        await this.#compactAll('shut-down');
      await this.#journal?.close();
      this.#journal = undefined;
      await rm(this.paths.journal, { force: true });
      await fsyncDir(dirname(this.paths.journal));
    } finally {
      await this.#journal?.close().catch(() => undefined);
      // A lock left behind names a dead pid and is taken over: never mask the error above.
      await this.#lock
        .release()
        .catch((err: Error) =>
          this.#warn(`Cannot remove the lock ${this.paths.lock}: ${err.message}`),
        );
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
          await this.#writeJournal(batch.map((entry) => entry.line).join(''));
        } catch (err) {
          for (const entry of batch) {
            this.#index.release(entry.reservation);
            entry.reject(err);
          }
          continue;
        }
        this.#stats.appends += batch.length;
        this.#stats.flushes++;
        // In queue order: the journal's order is the sequence.
        for (const entry of batch) entry.resolve(this.#index.commit(entry.reservation));
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

  async #writeJournal(text: string): Promise<void> {
    const buffer = Buffer.from(text, 'utf8');
    try {
      if (!this.#journal) await this.#openJournal();
      const journal = this.#journal as FileHandle;
      if (this.#mustTruncate) {
        await journal.truncate(this.#journalBytes);
        this.#mustTruncate = false;
      }
      let offset = 0;
      while (offset < buffer.byteLength) {
        offset += (await journal.write(buffer, offset)).bytesWritten;
      }
      await journal.datasync();
      this.#journalBytes += buffer.byteLength;
    } catch (err) {
      // Cut a partial write back off, so that no line of a refused card survives a restart.
      this.#mustTruncate = true;
      await this.#journal
        ?.truncate(this.#journalBytes)
        .then(() => (this.#mustTruncate = false))
        .catch(() => undefined);
      throw unavailable(`Cannot write the journal ${this.paths.journal}`, err);
    }
  }

  async #openJournal(): Promise<void> {
    const handle = await open(this.paths.journal, 'a', 0o644);
    try {
      this.#journalBytes = (await handle.stat()).size;
      await fsyncDir(dirname(this.paths.journal));
    } catch (err) {
      await handle.close();
      throw err;
    }
    this.#journal = handle;
  }

  /** Writes every record to the main file (start-up, shut-down); the caller empties the journal. */
  async #compactAll(when: string): Promise<void> {
    const count = this.#index.size;
    try {
      this.#db.data = { ...emptyData(), cards: this.cards().slice(0, count) };
      await this.#db.write();
    } catch (err) {
      throw unavailable(`Cannot write the store ${this.paths.store} at ${when}`, err);
    } finally {
      this.#db.data = emptyData();
    }
    this.#fileCards = count;
    this.#stats.compactions++;
    if (when === 'start-up') {
      await rm(this.paths.journal, { force: true });
      await fsyncDir(dirname(this.paths.journal));
    }
  }

  async #compactInBackground(): Promise<void> {
    const count = this.#index.size;
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
    const kept = this.#index.entries.slice(from).map((entry) => entry.card);
    try {
      await replaceFile(this.paths.journal, [
        kept.map((card) => `${serializeCard(card)}\n`).join(''),
      ]);
    } catch (err) {
      this.#warn(`Cannot shorten the journal (${(err as Error).message}); it keeps every card.`);
      return;
    }
    const old = this.#journal;
    this.#journal = undefined;
    this.#mustTruncate = false;
    await old?.close().catch(() => undefined);
    // Reopened on the next write if this fails; the next batch then retries.
    await this.#openJournal().catch(() => undefined);
    this.#compactAt = Math.max(this.#compactBytes, this.#file.bytes) + this.#journalBytes;
  }
}

/**
 * Appends the journal's cards to `records`, skipping those already present (a crash between
 * folding the journal in and removing it). Returns the journal's size; 0 when there is none.
 */
async function replayJournal(path: string, records: StoredCard[]): Promise<number> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  if (text.length === 0) return 0;
  const lines = text.split('\n');
  lines.pop(); // after the last newline: empty, or a torn line a crash cut short
  const known = new Set(records.map((card) => card.id));
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let card: StoredCard | undefined = parseStoredLine(line);
    if (!card) {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw corrupt(`line ${i + 1} of the journal ${path} is not valid JSON`);
      }
      card = readStoredCard(value, `line ${i + 1} of the journal ${path}`);
    }
    if (known.has(card.id)) return;
    known.add(card.id);
    records.push(card);
  });
  return Buffer.byteLength(text);
}

export const openJsonStore = (options: JsonStoreOptions): Promise<JsonStore> =>
  JsonStore.open(options);

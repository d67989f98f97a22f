/**
 * The transparency log of a registry: entry i is the decoded content snapshot of the
 * card whose store sequence number is i, exactly the bytes its id hashes. Every engine gives
 * cards a dense `seq` in acceptance order in the same durable write as the card, so the log
 * holds the registry's cards and nothing else, by construction; the tiles are derived data the
 * log writer (src/log/log-writer.ts) keeps beside the store.
 *
 * Integration runs in batches: an insert (`notify`) starts one at once when the log is idle and
 * at most one per `intervalMs` under load, and a poll every `intervalMs` picks up cards another
 * server sharing the store inserted. On open the cards past the checkpoint's size (a crash after
 * a card's write and before its tiles') are integrated before anything is served; a store with
 * fewer cards than the log, or other cards at the log's last positions, is a rewound store and
 * is refused (STORE_CORRUPT) rather than signed over.
 */
import { LRUCache } from 'lru-cache';
import { CardsError } from '../core/errors.js';
import { cardIdOf } from '../core/card-id.js';
import { decodeStoredBase64 } from '../core/encoding.js';
import { CARD_ID_PATTERN } from '../core/limits.js';
import { MAX_ENTRY_SIZE } from '../log/entry-bundle.js';
import { leafHash } from '../log/hash.js';
import { provesLeaf } from '../log/tlog-proof.js';
import type { LogWriter } from '../log/log-writer.js';
import { parseTilePath, TILE_WIDTH } from '../log/tile-path.js';
import type { CardEntry, CardStore } from '../store/store.js';

/**
 * Bytes of proof texts kept for the current checkpoint: a proof is about 1 KiB (some 20 hashes
 * and the signed checkpoint), so about 30,000 of them. Bounded by bytes like the tiles, and
 * large: a client cycling through more cards than an LRU cache holds misses every time, since
 * each proof is evicted just before it is asked again.
 */
const PROOF_CACHE_BYTES = 32 * 1024 * 1024;

export interface CardLogOptions {
  readonly store: CardStore;
  readonly writer: LogWriter;
  /** The longest a card waits before its batch starts, ms (`--log-interval`). */
  readonly intervalMs: number;
  /** Cards read from the store per batch at most. */
  readonly batchMax?: number;
  readonly onWarning?: (message: string) => void;
}

/**
 * The log entry of a stored card: its decoded content snapshot, which must still hash to the
 * card's id (a snapshot damaged on disk is never logged; the store refuses to serve it too).
 */
export function cardLogEntry(entry: CardEntry, location: string): Uint8Array {
  const bytes = decodeStoredBase64(entry.card.content_snapshot);
  if (!bytes || cardIdOf(bytes) !== entry.id)
    throw new CardsError(
      'STORE_CORRUPT',
      `The store ${location} is damaged: card #${entry.seq + 1} (${entry.id}) holds a snapshot that does not hash to its id; it cannot be logged, and the log waits until the store is restored.`,
    );
  // A stored card whose snapshot no create or import takes (core/snapshot.ts, 40092), as a
  // store written by hand holds: the log cannot write it (C2SP tlog-tiles, "Log entries": an
  // entry's length is two bytes).
  if (bytes.byteLength > MAX_ENTRY_SIZE)
    throw new CardsError(
      'STORE_CORRUPT',
      `The store ${location} holds card #${entry.seq + 1} (${entry.id}), whose snapshot of ${bytes.byteLength} bytes is longer than a log entry holds (${MAX_ENTRY_SIZE}); it cannot be logged, and the log waits.`,
      {
        hint: 'Export the store, drop that card (and any card after it in its chain), and import the rest into a new store; or start with --no-log.',
      },
    );
  return bytes;
}

export class CardLog {
  readonly writer: LogWriter;
  readonly #store: CardStore;
  readonly #interval: number;
  readonly #batchMax: number;
  readonly #warn: (message: string) => void;
  #running: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #poll: NodeJS.Timeout | undefined;
  #lastRun = 0;
  #closed = false;
  #waiters: { size: number; resolve: () => void }[] = [];
  /** Proof texts of the published checkpoint, by card id; emptied when it changes (a new size, a cosignature). */
  readonly #proofs = new LRUCache<string, string>({
    maxSize: PROOF_CACHE_BYTES,
    sizeCalculation: (text) => Math.max(1, text.length),
  });
  #proofsOf = '';
  /** Counts the logs this one began (#forget): what was read in an older one is not cached. */
  #generation = 0;

  private constructor(options: CardLogOptions) {
    this.writer = options.writer;
    this.#store = options.store;
    this.#interval = options.intervalMs;
    this.#batchMax = options.batchMax ?? 16_384;
    this.#warn = options.onWarning ?? (() => undefined);
  }

  /** Checks the log against the store, integrates what the log misses, starts the timers. */
  static async open(options: CardLogOptions): Promise<CardLog> {
    const log = new CardLog(options);
    await log.#checkAgainstStore();
    await log.integrate();
    log.#poll = setInterval(() => void log.#pollStore(), Math.max(10, log.#interval));
    log.#poll.unref();
    return log;
  }

  get origin(): string {
    return this.writer.origin;
  }

  get vkey(): string {
    return this.writer.vkey;
  }

  /** The published signed checkpoint (with cosignatures). */
  checkpoint(): string {
    return this.writer.published.checkpoint;
  }

  get size(): number {
    return this.writer.published.size;
  }

  /**
   * The tile or bundle at a tlog-tiles path (`tile/0/x001/234.p/5`) of the published tree, and
   * whether it is full (immutable); LOG_TILE_NOT_FOUND for anything else.
   */
  async readTilePath(path: string): Promise<{ data: Uint8Array; full: boolean }> {
    const tile = parseTilePath(path);
    if (!tile)
      throw new CardsError(
        'LOG_TILE_NOT_FOUND',
        `"${path.slice(0, 100)}" is not a tile path: tile/<L>/<N>[.p/<W>] or tile/entries/<N>[.p/<W>], N as x001/x234/067.`,
      );
    const data = await this.writer.readTile(tile);
    if (!data)
      throw new CardsError('LOG_TILE_NOT_FOUND', `The log (size ${this.size}) has no ${path}.`);
    return { data, full: tile.width === TILE_WIDTH };
  }

  /** A card was acknowledged: integrate now when idle, else within the interval. */
  notify(): void {
    if (this.#timer || this.#closed) return;
    const wait = Math.max(0, this.#lastRun + this.#interval - Date.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#lastRun = Date.now();
      this.#run(false).catch((err: Error) =>
        this.#warn(`transparency log: integration failed (${err.message}); will retry`),
      );
    }, wait);
    this.#timer.unref();
  }

  /** Integrates every durable card the log does not hold yet, in batches, one at a time. */
  integrate(): Promise<void> {
    return this.#run(true);
  }

  /**
   * Runs after the integrations queued before it: batches until the log holds every card
   * (`all`), or one batch, more only while they come full (a backlog). Under load the cards
   * acknowledged while a batch ran wait for the timer their `notify` set, one interval after
   * the batch began: each batch writes the right edge's partial tiles and a checkpoint, and
   * batches back to back would write them as fast as the disk syncs.
   */
  #run(all: boolean): Promise<void> {
    const run = this.#running.then(() => this.#integrateNow(all));
    this.#running = run.catch(() => undefined);
    return run;
  }

  /**
   * The tlog-proof of the card with this id; waits up to two intervals for a card acknowledged
   * but not integrated yet, then LOG_NOT_INTEGRATED. A proof is answered only once it proves the
   * card (RFC 9162 section 2.1.3.2 against the checkpoint it carries): on a shared log another
   * server may have begun a new log (a reset) that holds the card at an index where the log this
   * server published holds another; that log is taken up and the card proven there.
   */
  async proof(cardId: string): Promise<string> {
    if (!CARD_ID_PATTERN.test(cardId))
      throw new CardsError(
        'CARD_ID_INVALID',
        'Card ID is not a valid ID: expected 64 hex characters.',
      );
    const entry = await this.#store.getCard(cardId.toLowerCase());
    if (!entry) throw new CardsError('CARD_NOT_FOUND');
    const first = await this.#prove(entry, this.writer.tiles.shared);
    if (first !== undefined) return first;
    if (this.writer.tiles.shared) {
      await this.#takeUpStored();
      const again = await this.#prove(entry, false);
      if (again !== undefined) return again;
    }
    throw new CardsError(
      'LOG_NOT_INTEGRATED',
      `Card ${entry.id} (log index ${entry.seq}) is not in the log this server publishes (${this.origin}, size ${this.size}). Retry in a second.`,
    );
  }

  /**
   * The proof of `entry` in the published log (one made is checked once, then kept), or
   * undefined when that log holds another entry at its index, or (`stale`: a shared log not
   * taken up again yet) the stored tiles are of another log.
   */
  async #prove(entry: CardEntry, stale: boolean): Promise<string | undefined> {
    if (entry.seq >= this.size) {
      this.notify();
      await this.#waitFor(entry.seq + 1, 2 * this.#interval + 1000);
    }
    if (entry.seq >= this.size)
      throw new CardsError(
        'LOG_NOT_INTEGRATED',
        `Card ${entry.id} (log index ${entry.seq}) is not in a signed checkpoint yet; the log holds ${this.size} entries. Retry in a second.`,
      );
    const checkpoint = this.checkpoint();
    if (this.#proofsOf !== checkpoint) {
      this.#proofs.clear();
      this.#proofsOf = checkpoint;
    }
    const known = this.#proofs.get(entry.id);
    if (known !== undefined) return known;
    const generation = this.#generation;
    const text = await this.writer.proof(entry.seq).catch((err: unknown) => {
      // The tiles of another log are not read (TileStore.readTile): this log is not the stored one.
      if (stale) return undefined;
      throw err;
    });
    if (text === undefined) return undefined;
    if (!provesLeaf(text, leafHash(cardLogEntry(entry, this.#store.location)))) return undefined;
    if (this.#proofsOf === this.checkpoint() && generation === this.#generation)
      this.#proofs.set(entry.id, text);
    return text;
  }

  /** Stops the timers and integrates what is left, so a clean stop leaves the log complete. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    clearInterval(this.#poll);
    await this.integrate().catch((err: Error) =>
      this.#warn(`transparency log: last integration failed (${err.message})`),
    );
    for (const w of this.#waiters.splice(0)) w.resolve();
    await this.writer.close();
  }

  /** A shared log: what other servers appended (or a new log a reset began) is taken up. */
  async #takeUpStored(): Promise<void> {
    const origin = this.origin;
    await this.writer.refresh();
    if (this.origin !== origin) this.#forget();
    this.#wake();
  }

  async #pollStore(): Promise<void> {
    try {
      await this.#takeUpStored();
      if ((await this.#store.count()) > this.writer.size) this.notify();
    } catch (err) {
      this.#warn(`transparency log: ${(err as Error).message}`);
    }
  }

  async #integrateNow(all: boolean): Promise<void> {
    for (;;) {
      const appended = await this.writer.extend(async (from) => {
        const count = await this.#store.count();
        if (count <= from) return [];
        const limit = Math.min(count - from, this.#batchMax);
        const cards = await this.#store.listCards(from - 1, limit);
        cards.forEach((card, i) => {
          if (card.seq !== from + i)
            throw new CardsError(
              'STORE_CORRUPT',
              `${this.#store.location}: card ${card.id} has sequence number ${card.seq} where ${from + i} was expected; the log cannot follow a store with gaps.`,
            );
        });
        return cards.map((card) => cardLogEntry(card, this.#store.location));
      });
      // A full batch is a backlog (a start after a crash, a burst): the next one goes at once.
      if (appended === 0 || (!all && appended < this.#batchMax)) break;
    }
    this.#wake();
  }

  /** Resolves the proofs waiting for a size the published log reached. */
  #wake(): void {
    const size = this.size;
    this.#waiters = this.#waiters.filter((w) => (w.size <= size ? (w.resolve(), false) : true));
  }

  /**
   * Empties the registry and begins a new log (origin `<base>/reset-N`) rather than rewinding
   * the old one, with no integration in between. `emptyStore` is the store's reset; a shared
   * store empties its log tables in the same transaction (every server then takes up the new
   * log), one on files has its log begun anew first: a crash between the two leaves a new log
   * that integrates the cards still stored, never a log ahead of its store.
   */
  reset(emptyStore: () => Promise<void>): Promise<void> {
    const run = this.#running.then(async () => {
      if (this.writer.tiles.shared) {
        await emptyStore();
        await this.writer.refresh();
      } else {
        await this.writer.restart();
        await emptyStore();
      }
      this.#forget();
    });
    this.#running = run.catch(() => undefined);
    return run;
  }

  /** Drops what was cached of an older log (proofs of its sizes). */
  #forget(): void {
    this.#generation++;
    this.#proofs.clear();
    this.#proofsOf = '';
  }

  #waitFor(size: number, timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      const waiter = { size, resolve: done };
      this.#waiters.push(waiter);
    });
  }

  /** A store behind the log (restored from an older backup, or another store) is refused. */
  async #checkAgainstStore(): Promise<void> {
    const size = this.writer.size;
    const count = await this.#store.count();
    const where = this.#store.location;
    const hint = `restore the store from a backup that holds at least the log's ${size} cards, or start with the store's own log folder; clients that accepted the log's checkpoint would see a rewound log (exit 8)`;
    if (count < size)
      throw new CardsError(
        'STORE_CORRUPT',
        `The store ${where} holds ${count} cards but its transparency log (${this.writer.tiles.location}) signed ${size}: the store was rewound; refusing to start.`,
        { hint },
      );
    const { from, entries: bundle } = await this.writer.lastEntries();
    const cards = await this.#store.listCards(from - 1, bundle.length);
    // By id: the stored id is the card's identity even when its snapshot was damaged on disk
    // afterwards (the store refuses that one card; the log keeps its entry).
    cards.forEach((card, i) => {
      if (card.id !== cardIdOf(bundle[i] as Uint8Array))
        throw new CardsError(
          'STORE_CORRUPT',
          `The store ${where} holds card ${card.id} at log index ${from + i}, which its transparency log (${this.writer.tiles.location}) has a different entry for: the store is not the one the log was signed over; refusing to start.`,
          { hint },
        );
    });
  }
}

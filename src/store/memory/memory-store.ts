/**
 * The memory engine's card store (index.ts): for `cards serve --memory`, unit tests of the
 * registry and the HTTP app, and tools that need a throwaway registry. It keeps the same indexes
 * as the JSON store (card-index.ts). `beforeAppend` lets a test delay or fail a write (a disk
 * that fills up, a slow fdatasync) without touching the file system.
 */
import { CardsError } from '../../core/errors.js';
import { CardIndex } from '../card-index.js';
import { IndexedStore } from '../indexed-store.js';
import type { CardEntry, StoreStats, StoredCard } from '../store.js';

export interface MemoryStoreOptions {
  /** Cards stored already, in insertion order (checked like a store file's). */
  readonly cards?: readonly StoredCard[];
  /** Runs before each insert is acknowledged; a rejection fails that insert. */
  readonly beforeAppend?: (card: StoredCard) => void | Promise<void>;
}

export class MemoryStore extends IndexedStore {
  readonly location = 'memory';
  /** Inserts between reserve and commit: a reset waits for them. */
  readonly #inFlight = new Set<Promise<unknown>>();
  #resetting: Promise<void> | undefined;
  #appends = 0;
  #closed = false;
  readonly #beforeAppend: MemoryStoreOptions['beforeAppend'];

  constructor(options: MemoryStoreOptions = {}) {
    super();
    this.index.load(options.cards ?? [], this.location);
    this.#beforeAppend = options.beforeAppend;
  }

  async insert(card: StoredCard): Promise<CardEntry> {
    if (this.#closed) throw new CardsError('STORE_UNAVAILABLE', 'The store is closed.');
    if (this.#resetting) await this.#resetting;
    const index = this.index;
    const reservation = index.reserve(card);
    const before = this.#beforeAppend;
    const written = (async () => before?.(card))();
    this.#inFlight.add(written);
    try {
      await written;
    } catch (err) {
      index.release(reservation);
      throw err;
    } finally {
      this.#inFlight.delete(written);
    }
    this.#appends++;
    return index.commit(reservation);
  }

  /** Waits for inserts in flight (they land before the reset), then starts an empty index. */
  async reset(): Promise<void> {
    this.#resetting ??= (async () => {
      while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
      this.index = new CardIndex();
    })().finally(() => (this.#resetting = undefined));
    return this.#resetting;
  }

  stats(): StoreStats {
    return {
      cards: this.index.size,
      appends: this.#appends,
      flushes: this.#appends,
      compactions: 0,
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
  }
}

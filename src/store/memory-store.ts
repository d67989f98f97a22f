/**
 * A store held in memory: for `cards serve --memory`, unit tests of the registry and the HTTP
 * app, and tools that need a throwaway registry. It keeps the same indexes as the JSON-file
 * store (card-index.ts). `beforeAppend` lets a test delay or fail a write (a disk that fills up,
 * a slow fdatasync) without touching the file system.
 */
import { CardsError } from '../core/errors.js';
import { CardIndex } from './card-index.js';
import type { CardChain, CardEntry, CardStore, StoreStats, StoredCard } from './store.js';

export interface MemoryStoreOptions {
  /** Cards stored already, in insertion order (checked like a store file's). */
  readonly cards?: readonly StoredCard[];
  /** Runs before each insert is acknowledged; a rejection fails that insert. */
  readonly beforeAppend?: (card: StoredCard) => void | Promise<void>;
}

export class MemoryStore implements CardStore {
  readonly engine = 'memory';
  readonly location = 'memory';
  readonly #index = new CardIndex();
  #appends = 0;
  #closed = false;
  readonly #beforeAppend: MemoryStoreOptions['beforeAppend'];

  constructor(options: MemoryStoreOptions = {}) {
    this.#index.load(options.cards ?? [], this.location);
    this.#beforeAppend = options.beforeAppend;
  }

  /** Every stored card, in insertion order. */
  get cards(): StoredCard[] {
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

  async insert(card: StoredCard): Promise<CardEntry> {
    if (this.#closed) throw new CardsError('STORE_UNAVAILABLE', 'The store is closed.');
    const reservation = this.#index.reserve(card);
    try {
      await this.#beforeAppend?.(card);
    } catch (err) {
      this.#index.release(reservation);
      throw err;
    }
    this.#appends++;
    return this.#index.commit(reservation);
  }

  async scan(fromSeq: number, limit: number): Promise<StoredCard[]> {
    return this.#index.entries.slice(fromSeq, fromSeq + limit).map((entry) => entry.card);
  }

  async count(): Promise<number> {
    return this.#index.size;
  }

  stats(): StoreStats {
    return {
      cards: this.#index.size,
      appends: this.#appends,
      flushes: this.#appends,
      compactions: 0,
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
  }
}

/**
 * A store held in memory: for unit tests of the registry and the HTTP app, and for tools that
 * need a throwaway registry. `beforeAppend` lets a test delay or fail a write (a disk that fills
 * up, a slow fdatasync) without touching the file system.
 */
import type { CardStore, StoreStats, StoredCard } from './store.js';

export interface MemoryStoreOptions {
  readonly cards?: readonly StoredCard[];
  /** Runs before each append is stored; a rejection fails that append. */
  readonly beforeAppend?: (card: StoredCard) => void | Promise<void>;
}

export class MemoryStore implements CardStore {
  readonly location = 'memory';
  readonly cards: StoredCard[];
  #appends = 0;
  #closed = false;
  readonly #beforeAppend: MemoryStoreOptions['beforeAppend'];

  constructor(options: MemoryStoreOptions = {}) {
    this.cards = [...(options.cards ?? [])];
    this.#beforeAppend = options.beforeAppend;
  }

  load(): readonly StoredCard[] {
    return this.cards;
  }

  async append(card: StoredCard): Promise<void> {
    if (this.#closed) throw new Error('memory store is closed');
    await this.#beforeAppend?.(card);
    this.cards.push(card);
    this.#appends++;
  }

  stats(): StoreStats {
    return {
      cards: this.cards.length,
      appends: this.#appends,
      flushes: this.#appends,
      compactions: 0,
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
  }
}

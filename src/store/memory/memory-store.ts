/**
 * The memory engine's card store (index.ts): for `cards serve --memory`, unit tests of the
 * registry and the HTTP app, and tools that need a throwaway registry. It keeps the same indexes as the JSON-file
 * store (card-index.ts). `beforeAppend` lets a test delay or fail a write (a disk that fills up,
 * a slow fdatasync) without touching the file system.
 */
import { CardsError } from '../../core/errors.js';
import { CardIndex } from '../card-index.js';
import type {
  CardChain,
  CardEntry,
  CardStore,
  IdentityQuery,
  IdentitySummary,
  StoreStats,
  StoredCard,
} from '../store.js';

export interface MemoryStoreOptions {
  /** Cards stored already, in insertion order (checked like a store file's). */
  readonly cards?: readonly StoredCard[];
  /** Runs before each insert is acknowledged; a rejection fails that insert. */
  readonly beforeAppend?: (card: StoredCard) => void | Promise<void>;
}

export class MemoryStore implements CardStore {
  readonly location = 'memory';
  #index = new CardIndex();
  /** Inserts between reserve and commit: a reset waits for them. */
  readonly #inFlight = new Set<Promise<unknown>>();
  #resetting: Promise<void> | undefined;
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

  revisionOf(identity: string): number | undefined {
    return this.#index.revisionOf(identity);
  }

  async insert(card: StoredCard): Promise<CardEntry> {
    if (this.#closed) throw new CardsError('STORE_UNAVAILABLE', 'The store is closed.');
    if (this.#resetting) await this.#resetting;
    const index = this.#index;
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

  async listCards(afterSeq: number | undefined, limit: number): Promise<CardEntry[]> {
    return this.#index.list(afterSeq, limit);
  }

  async listIdentities(query: IdentityQuery): Promise<IdentitySummary[]> {
    return this.#index.identities(query);
  }

  /** Waits for inserts in flight (they land before the reset), then starts an empty index. */
  async reset(): Promise<void> {
    this.#resetting ??= (async () => {
      while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
      this.#index = new CardIndex();
    })().finally(() => (this.#resetting = undefined));
    return this.#resetting;
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

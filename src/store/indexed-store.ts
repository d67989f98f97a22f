/**
 * The queries of a card store that holds its cards in a CardIndex (card-index.ts): the memory and
 * JSON engines. Every answer is a Map hit or a slice of the index; `seen` lets a store look at each
 * card before it is handed out (the JSON store checks a card read from disk on its first read).
 */
import { CardIndex, type IndexedCard } from './card-index.js';
import type {
  CardChain,
  CardEntry,
  CardStore,
  IdentityQuery,
  IdPrefixQuery,
  IdentitySummary,
  StoreStats,
  StoredCard,
} from './store.js';

export abstract class IndexedStore implements CardStore {
  abstract readonly location: string;
  /** Replaced by an empty one on reset. */
  protected index = new CardIndex();

  /** Runs on each card a query hands out; throws to refuse serving it. */
  protected seen(_entry: IndexedCard): void {}

  /** Every durable card, in insertion order. */
  cards(): StoredCard[] {
    return this.index.entries.map((entry) => entry.card);
  }

  async getCard(id: string): Promise<CardEntry | undefined> {
    const entry = this.index.get(id);
    if (entry) this.seen(entry);
    return entry;
  }

  async lastOfChain(id: string): Promise<CardEntry | undefined> {
    const last = this.index.get(id)?.chain.last;
    if (last) this.seen(last);
    return last;
  }

  async chainsOf(identities: readonly string[]): Promise<CardChain[]> {
    const chains = [...new Set(identities)].flatMap((identity) => this.index.chainsOf(identity));
    for (const chain of chains) for (const entry of chain.cards) this.seen(entry);
    return chains;
  }

  revisionOf(identity: string): number | undefined {
    return this.index.revisionOf(identity);
  }

  async listCards(afterSeq: number | undefined, limit: number): Promise<CardEntry[]> {
    return this.index.list(afterSeq, limit);
  }

  async listIdentities(query: IdentityQuery): Promise<IdentitySummary[]> {
    return this.index.identities(query);
  }

  async cardsWithIdPrefix(query: IdPrefixQuery): Promise<CardEntry[]> {
    return this.index.withIdPrefix(query);
  }

  async scan(fromSeq: number, limit: number): Promise<StoredCard[]> {
    return this.index.entries.slice(fromSeq, fromSeq + limit).map((entry) => entry.card);
  }

  async count(): Promise<number> {
    return this.index.size;
  }

  abstract insert(card: StoredCard): Promise<CardEntry>;
  abstract reset(): Promise<void>;
  abstract stats(): StoreStats;
  abstract close(): Promise<void>;
}

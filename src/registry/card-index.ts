/**
 * The registry's in-memory indexes: cards by id, chains by identity, and each card's successor
 * (the index by previous_card_id). Every lookup is a Map hit or a pointer; nothing scans.
 *
 * A chain is the line of cards linked through previous_card_id (spec 2.2 rules 1-3): ids and
 * previous ids are unique, so chains never branch. A chain is revoked when its last card is a
 * revoking card. Holds only durable cards: the registry adds a card after the store acknowledged
 * it. Never checks the service's rules (registry.ts does); `load` only refuses a store whose
 * relations are impossible (a hand-edited or damaged file).
 */
import { CardsError } from '../core/errors.js';
import { wireCard, type StoredCard } from '../store/store.js';

export class Chain {
  readonly cards: IndexedCard[] = [];

  get last(): IndexedCard {
    return this.cards[this.cards.length - 1] as IndexedCard;
  }

  get revoked(): boolean {
    return this.last.card.revoking === true;
  }
}

export class IndexedCard {
  readonly card: StoredCard;
  readonly chain: Chain;
  /** The card that names this one as previous_card_id (a replacement or a revoking card). */
  successor: IndexedCard | undefined;
  #json: string | undefined;

  constructor(card: StoredCard, chain: Chain) {
    this.card = card;
    this.chain = chain;
  }

  get id(): string {
    return this.card.id;
  }

  /** Spec section 3: another card names this one as its previous card. */
  get superseded(): boolean {
    return this.successor !== undefined;
  }

  /** The wire object as JSON text, made on first read and kept (cards are immutable). */
  get json(): string {
    return (this.#json ??= this.card.wireJson ?? JSON.stringify(wireCard(this.card)));
  }
}

export class CardIndex {
  readonly #byId = new Map<string, IndexedCard>();
  readonly #byIdentity = new Map<string, Chain[]>();

  get size(): number {
    return this.#byId.size;
  }

  get(id: string): IndexedCard | undefined {
    return this.#byId.get(id);
  }

  /** The chains of an identity, oldest first (by when their first card was stored). */
  chainsOf(identity: string): readonly Chain[] {
    return this.#byIdentity.get(identity) ?? [];
  }

  /** Adds a durable card whose relations the registry checked. */
  add(card: StoredCard): IndexedCard {
    const previous =
      card.previous_card_id === undefined ? undefined : this.#byId.get(card.previous_card_id);
    let chain: Chain;
    if (previous) {
      chain = previous.chain;
    } else {
      chain = new Chain();
      const chains = this.#byIdentity.get(card.identity);
      if (chains) chains.push(chain);
      else this.#byIdentity.set(card.identity, [chain]);
    }
    const entry = new IndexedCard(card, chain);
    chain.cards.push(entry);
    if (previous) previous.successor = entry;
    this.#byId.set(card.id, entry);
    return entry;
  }

  /**
   * Adds the cards of a store being opened, refusing relations no registry could have made:
   * a repeated id, a previous card that is missing, later, of another identity, already
   * replaced, or a revoking card. O(1) per card.
   */
  load(cards: readonly StoredCard[], location: string): void {
    cards.forEach((card, position) => {
      const broken = (why: string): CardsError =>
        new CardsError(
          'STORE_CORRUPT',
          `The store ${location} cannot be read: card #${position + 1} (${card.id}) ${why}.`,
          { hint: 'Restore the file from a backup, or point --db at another file.' },
        );
      if (this.#byId.has(card.id)) throw broken('appears twice');
      if (card.previous_card_id !== undefined) {
        const previous = this.#byId.get(card.previous_card_id);
        if (!previous) throw broken('names a previous card that is not stored before it');
        if (previous.card.identity !== card.identity)
          throw broken('names a previous card of another identity');
        if (previous.successor) throw broken('names a previous card that is replaced already');
        if (previous.card.revoking) throw broken('names a revoking card as its previous card');
      }
      this.add(card);
    });
  }
}

/**
 * The relation checks of `CardIndex.load` on cards a store has read, without keeping an index:
 * a store calls it before start-up writes anything, so that a damaged journal is refused with
 * every file untouched (STORE_CORRUPT).
 */
export function checkStoredCards(cards: readonly StoredCard[], location: string): void {
  new CardIndex().load(cards, location);
}

/**
 * The in-memory indexes of the memory and JSON-file stores: cards by id, chains by identity,
 * each card's successor, and insertion order. Every query is a Map hit or a pointer; nothing
 * scans.
 *
 * Inserting is two steps around the durable write: `reserve` checks the chain rules
 * (src/core/chain.ts) against the stored cards and the reservations of cards still being
 * written, then holds the card's id and its previous card's successor slot; `commit` makes the
 * card visible once it is durable, `release` drops a reservation whose write failed. So racing
 * requests get 40027 / 40037 / 40310 deterministically (exactly one winner), and a card is
 * readable only once it is durable. `load` refuses a store whose relations are impossible (a
 * hand-edited or damaged file) with STORE_CORRUPT.
 */
import {
  cardState,
  previousConflict,
  previousNotFound,
  previousSuperseded,
  snapshotNotUnique,
  type CardState,
} from '../core/chain.js';
import { CardsError } from '../core/errors.js';
import {
  wireJsonOf,
  type CardChain,
  type CardEntry,
  type IdentityQuery,
  type IdPrefixQuery,
  type IdentitySummary,
  type StoredCard,
} from './store.js';
import { SortedKeys } from './sorted-keys.js';

/**
 * The last revision given (store.ts `revisionOf`). Counted for the whole process rather than
 * per index, so the new index of a reset never gives an identity a revision it had before.
 */
let lastRevision = 0;

class Chain implements CardChain {
  readonly identity: string;
  /**
   * Oldest first. Made as an array of the chain's first card by CardIndex#add, not grown from
   * an empty one: most chains hold one card, and an array's first push reserves room for 16.
   */
  cards!: IndexedCard[];
  /** Given anew each time a card joins the chain (the chain's cards only ever grow). */
  revision = 0;

  constructor(identity: string) {
    this.identity = identity;
  }

  get last(): IndexedCard {
    return this.cards[this.cards.length - 1] as IndexedCard;
  }

  get revoked(): boolean {
    return this.last.card.revoking === true;
  }
}

export class IndexedCard implements CardEntry {
  readonly card: StoredCard;
  readonly chain: Chain;
  readonly seq: number;
  /** The card that names this one as previous_card_id (a replacement or a revoking card). */
  next: IndexedCard | undefined;
  /** Its id is known to match its snapshot (cards read from disk are checked later). */
  checked = true;
  #json: string | undefined;

  constructor(card: StoredCard, chain: Chain, seq: number) {
    this.card = card;
    this.chain = chain;
    this.seq = seq;
  }

  get id(): string {
    return this.card.id;
  }

  get revoking(): boolean {
    return this.card.revoking === true;
  }

  get successor(): string | undefined {
    return this.next?.id;
  }

  get revokedBy(): string | undefined {
    return this.chain.revoked ? this.chain.last.id : undefined;
  }

  get state(): CardState {
    return cardState(this);
  }

  /** Spec section 3: another card names this one as its previous card. */
  get superseded(): boolean {
    return this.next !== undefined;
  }

  /** The wire object as JSON text, made on first read and kept (cards are immutable). */
  get json(): string {
    return (this.#json ??= wireJsonOf(this.card));
  }
}

/** A card waiting for its durable write: it holds its id and its previous card's successor slot. */
export interface Reservation {
  readonly card: StoredCard;
}

export class CardIndex {
  readonly #byId = new Map<string, IndexedCard>();
  /** An identity's chain, or its chains when it has several (most have one: no array made). */
  readonly #byIdentity = new Map<string, Chain | Chain[]>();
  readonly #entries: IndexedCard[] = [];
  /**
   * Every identity, and every card id, in code-point order for the admin listings: made from
   * the index by the first listing (a start-up lists nothing), kept up to date after it.
   */
  #identityKeys: SortedKeys | undefined;
  #idKeys: SortedKeys | undefined;
  readonly #pendingIds = new Set<string>();
  /** Reserved successors, by the previous card id they name. */
  readonly #pendingSuccessors = new Map<string, StoredCard>();

  get size(): number {
    return this.#entries.length;
  }

  /** Every durable card in insertion order. */
  get entries(): readonly IndexedCard[] {
    return this.#entries;
  }

  get(id: string): IndexedCard | undefined {
    return this.#byId.get(id);
  }

  /** The chains of an identity, oldest first (by when their first card was stored). */
  chainsOf(identity: string): readonly Chain[] {
    const chains = this.#byIdentity.get(identity);
    return chains === undefined ? [] : chains instanceof Chain ? [chains] : chains;
  }

  /**
   * store.ts `revisionOf`: the newest revision among the identity's chains. A card joining the
   * identity gives its chain a revision above every earlier one, so the maximum changes; nothing
   * else changes a chain (cards are immutable; states, successors and revoked_by follow from the
   * order of the chain's cards).
   */
  revisionOf(identity: string): number | undefined {
    // One lookup and no array made: every read of a kept history asks this first.
    const chains = this.#byIdentity.get(identity);
    if (chains === undefined) return undefined;
    if (chains instanceof Chain) return chains.revision;
    let revision = 0;
    for (const chain of chains) if (chain.revision > revision) revision = chain.revision;
    return revision;
  }

  /** Cards after sequence number `afterSeq` (seq = position), at most `limit`. */
  list(afterSeq: number | undefined, limit: number): IndexedCard[] {
    const start = afterSeq === undefined ? 0 : Math.max(0, Math.floor(afterSeq) + 1);
    return this.#entries.slice(start, start + Math.max(0, limit));
  }

  /** Identities in ascending order from a binary search: the cost is the page's. */
  identities({ prefix = '', after, limit }: IdentityQuery): IdentitySummary[] {
    const identities = this.#identities();
    return identities.page(prefix, after, limit).map((identity) => {
      let cards = 0;
      let revokedChains = 0;
      const chains = this.chainsOf(identity);
      for (const chain of chains) {
        cards += chain.cards.length;
        if (chain.revoked) revokedChains++;
      }
      return { identity, cards, liveChains: chains.length - revokedChains, revokedChains };
    });
  }

  /** Cards whose id starts with `prefix`, in id order, from a binary search: the page's cost. */
  withIdPrefix({ prefix, after, limit }: IdPrefixQuery): IndexedCard[] {
    const ids = this.#ids();
    return ids.page(prefix, after, limit).map((id) => this.#byId.get(id) as IndexedCard);
  }

  #identities(): SortedKeys {
    if (this.#identityKeys) return this.#identityKeys;
    const keys = new SortedKeys();
    for (const identity of this.#byIdentity.keys()) keys.add(identity);
    return (this.#identityKeys = keys);
  }

  #ids(): SortedKeys {
    if (this.#idKeys) return this.#idKeys;
    const keys = new SortedKeys();
    for (const entry of this.#entries) keys.add(entry.id);
    return (this.#idKeys = keys);
  }

  /**
   * Checks that `card` may be stored now, counting cards still being written, and holds its id
   * and its previous card's successor slot until `commit` or `release`.
   */
  reserve(card: StoredCard): Reservation {
    const previous =
      card.previous_card_id === undefined ? undefined : this.#byId.get(card.previous_card_id);
    if (card.previous_card_id !== undefined) {
      if (!previous) throw previousNotFound(card.previous_card_id);
      const last = previous.chain.last;
      const afterLast = this.#pendingSuccessors.get(last.id);
      const lastId = afterLast?.id ?? last.id;
      const conflict = previousConflict(
        {
          revoking: previous.revoking,
          successor: previous.next?.id ?? this.#pendingSuccessors.get(previous.id)?.id,
          revokedBy: last.revoking ? last.id : afterLast?.revoking ? afterLast.id : undefined,
        },
        card.revoking === true,
      );
      if (conflict === 'PREVIOUS_SUPERSEDED') throw previousSuperseded(previous.id, lastId);
      if (conflict) throw new CardsError(conflict);
      if (previous.card.identity !== card.identity)
        throw new CardsError('PREVIOUS_IDENTITY_MISMATCH');
    }
    if (this.#byId.has(card.id) || this.#pendingIds.has(card.id)) throw snapshotNotUnique(card.id);
    if (previous?.revoking) throw new CardsError('CHAIN_REVOKED');
    this.#pendingIds.add(card.id);
    if (card.previous_card_id !== undefined)
      this.#pendingSuccessors.set(card.previous_card_id, card);
    return { card };
  }

  /** Makes a reserved card visible, once it is durable; its sequence number is its position. */
  commit(reservation: Reservation): IndexedCard {
    this.release(reservation);
    return this.#add(reservation.card);
  }

  release({ card }: Reservation): void {
    this.#pendingIds.delete(card.id);
    if (
      card.previous_card_id !== undefined &&
      this.#pendingSuccessors.get(card.previous_card_id) === card
    )
      this.#pendingSuccessors.delete(card.previous_card_id);
  }

  #add(
    card: StoredCard,
    previous = card.previous_card_id === undefined
      ? undefined
      : this.#byId.get(card.previous_card_id),
  ): IndexedCard {
    let chain: Chain;
    if (previous) {
      chain = previous.chain;
    } else {
      chain = new Chain(card.identity);
      const chains = this.#byIdentity.get(card.identity);
      if (chains === undefined) {
        this.#byIdentity.set(card.identity, chain);
        this.#identityKeys?.add(card.identity);
      } else if (chains instanceof Chain) this.#byIdentity.set(card.identity, [chains, chain]);
      else chains.push(chain);
    }
    const entry = new IndexedCard(card, chain, this.#entries.length);
    if (previous) chain.cards.push(entry);
    else chain.cards = [entry];
    chain.revision = ++lastRevision;
    if (previous) previous.next = entry;
    this.#byId.set(card.id, entry);
    this.#idKeys?.add(card.id);
    this.#entries.push(entry);
    return entry;
  }

  /**
   * Adds the cards of a store being opened, refusing relations no registry could have made:
   * a repeated id, a previous card that is missing, later, of another identity, already
   * replaced, or a revoking card. O(1) per card.
   */
  load(cards: Iterable<StoredCard>, location: string, options: { checked?: boolean } = {}): void {
    this.#loadCards(cards, location, options.checked ?? true);
  }

  #loadCards(cards: Iterable<StoredCard>, location: string, checked: boolean): void {
    let position = 0;
    for (const card of cards) {
      position++;
      let why: string | undefined;
      const previous =
        card.previous_card_id === undefined ? undefined : this.#byId.get(card.previous_card_id);
      if (this.#byId.has(card.id)) why = 'appears twice';
      else if (card.previous_card_id !== undefined) {
        if (!previous) why = 'names a previous card that is not stored before it';
        else if (previous.card.identity !== card.identity)
          why = 'names a previous card of another identity';
        else if (previous.next) why = 'names a previous card that is replaced already';
        else if (previous.revoking) why = 'names a revoking card as its previous card';
      }
      if (why !== undefined)
        throw new CardsError(
          'STORE_CORRUPT',
          `The store ${location} cannot be read: card #${position} (${card.id}) ${why}.`,
          { hint: 'Restore the file from a backup, or point --db at another file.' },
        );
      this.#add(card, previous).checked = checked;
    }
  }
}
